#include "judge/kernel_speeds.h"

#include <algorithm>
#include <cmath>

#include "common/text.h"
#include "profile/kernel_metrics.h"

namespace kernelblaster {

std::string kernel_base_name(const std::string& name) {
  const std::string d = profile::demangle(name);
  std::string flat;  // without template arguments
  int depth = 0;
  for (char c : d) {
    if (c == '<') ++depth;
    if (depth == 0) flat += c;
    if (c == '>' && depth > 0) --depth;
  }
  // The parameter list is the parenthesis group that ends the name; the
  // return type ends at the last space outside parentheses. A kernel in an
  // unnamed namespace ("void (anonymous namespace)::f(float*)") keeps its
  // qualifier, where cutting at the first '(' and the last space gave "".
  if (!flat.empty() && flat.back() == ')') {
    int open = 0;
    for (std::size_t i = flat.size(); i-- > 0;) {
      open += flat[i] == ')' ? 1 : flat[i] == '(' ? -1 : 0;
      if (open == 0) {
        flat.resize(i);
        break;
      }
    }
  }
  std::size_t name_at = 0;
  int parens = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    parens += flat[i] == '(' ? 1 : flat[i] == ')' ? -1 : 0;
    if (flat[i] == ' ' && parens == 0) name_at = i + 1;
  }
  return flat.substr(name_at);
}

std::vector<KernelSpeed> kernel_speeds(const TimingReport& ref, const TimingReport& cand) {
  std::vector<KernelSpeed> out;
  if (ref.kernels.empty() || ref.kernels.size() != cand.kernels.size()) return out;
  for (std::size_t k = 0; k < ref.kernels.size(); ++k) {
    const KernelTiming& r = ref.kernels[k];
    const KernelTiming& c = cand.kernels[k];
    KernelSpeed s;
    s.name = kernel_base_name(c.name);
    if (s.name != kernel_base_name(r.name) || r.median_ns <= 0 || c.median_ns <= 0) return {};
    s.median_us = c.median_ns / 1e3;
    s.reference_median_us = r.median_ns / 1e3;
    s.speedup = r.median_ns / c.median_ns;
    s.optimistic_speedup = c.q1_ns > 0 ? r.q3_ns / c.q1_ns : s.speedup;
    s.slower = c.median_ns > r.median_ns * kKernelSlowerLimit && c.q1_ns > r.q3_ns;
    out.push_back(s);
  }
  return out;
}

std::vector<KernelOverSizes> kernels_over_sizes(const std::vector<SizeTiming>& timing) {
  struct Sums {
    KernelOverSizes k;
    double log_speedup = 0, log_optimistic = 0;
  };
  std::vector<Sums> places;  // by place in the launch order
  for (const SizeTiming& t : timing) {
    if (t.validation_only) continue;  // timed on a second look only: not what the search compared
    for (std::size_t i = 0; i < t.kernels.size(); ++i) {
      const KernelSpeed& s = t.kernels[i];
      if (s.speedup <= 0) continue;
      if (places.size() <= i) places.resize(i + 1);
      Sums& p = places[i];
      if (p.k.sizes > 0 && p.k.name != s.name) continue;  // another kernel at this place: not this one
      p.k.name = s.name;
      p.k.place = i;
      p.log_speedup += std::log(s.speedup);
      p.log_optimistic += std::log(s.optimistic_speedup > 0 ? s.optimistic_speedup : s.speedup);
      if (p.k.sizes == 0 || s.speedup < p.k.slowest_speedup) {
        p.k.slowest_speedup = s.speedup;
        p.k.slowest_size = t.size;
      }
      ++p.k.sizes;
    }
  }
  std::vector<KernelOverSizes> out;
  for (Sums& p : places) {
    if (p.k.sizes == 0) continue;
    p.k.speedup = std::exp(p.log_speedup / p.k.sizes);
    p.k.optimistic_speedup = std::exp(p.log_optimistic / p.k.sizes);
    p.k.slower = p.k.speedup * kKernelSlowerLimit < 1.0 && p.k.optimistic_speedup < 1.0;
    out.push_back(p.k);
  }
  return out;
}

std::string slower_kernel(const std::vector<SizeTiming>& timing) {
  for (const KernelOverSizes& k : kernels_over_sizes(timing)) {
    if (!k.slower) continue;
    if (k.sizes == 1) return k.name + " " + fixed_point(k.speedup, 3) + "x at " + k.slowest_size;
    return k.name + " " + fixed_point(k.speedup, 3) + "x over " + std::to_string(k.sizes) + " sizes (" +
           fixed_point(k.slowest_speedup, 3) + "x at " + k.slowest_size + ")";
  }
  return "";
}

std::string kernel_slower_at_a_size(const std::vector<SizeTiming>& timing) {
  for (const KernelOverSizes& k : kernels_over_sizes(timing)) {
    if (k.slower || k.sizes < 2) continue;
    for (const SizeTiming& t : timing) {
      if (t.validation_only || t.kernels.size() <= k.place) continue;
      const KernelSpeed& s = t.kernels[k.place];
      if (s.slower && s.name == k.name)
        return k.name + " " + fixed_point(s.speedup, 3) + "x at " + t.size + ", " + fixed_point(k.speedup, 3) +
               "x over " + std::to_string(k.sizes) + " sizes";
    }
  }
  return "";
}

std::string other_sizes_text(const std::vector<SizeTiming>& timing) {
  const SizeTiming* slowest = nullptr;
  const SizeTiming* fastest = nullptr;
  int n = 0;
  for (const SizeTiming& t : timing) {
    if (!t.validation_only || t.speedup <= 0) continue;
    ++n;
    if (!slowest || t.speedup < slowest->speedup) slowest = &t;
    if (!fastest || t.speedup > fastest->speedup) fastest = &t;
  }
  if (n == 0) return "";
  if (n == 1) return fixed_point(slowest->speedup, 3) + "x at " + slowest->size;
  return fixed_point(slowest->speedup, 3) + "x (" + slowest->size + ") to " + fixed_point(fastest->speedup, 3) +
         "x (" + fastest->size + ") at " + std::to_string(n) + " sizes";
}

namespace {

// A call whose host time follows its GPU time: the launcher waits on the
// device (a synchronous copy, a synchronize), so its host time is not a
// launch's cost. Seen where the candidate's issue time fell by at least
// half of the GPU time it saved a call.
bool host_waits_on_gpu(const SizeTiming& t) {
  const double saved = t.reference_busy_median_us - t.busy_median_us;
  return saved > 0 && t.reference_issue_us - t.issue_us >= 0.5 * saved;
}

}  // namespace

std::string launch_paced_text(const std::vector<SizeTiming>& timing) {
  std::string out;
  std::size_t most = 0;
  for (const SizeTiming& t : timing) {
    if (t.validation_only || t.kernels.empty() || t.issue_us <= 0 || t.reference_issue_us <= 0) continue;
    if (host_waits_on_gpu(t)) continue;
    const double pace = std::min(t.issue_us, t.reference_issue_us) / static_cast<double>(t.kernels.size());
    const KernelSpeed* worst = nullptr;
    double worst_hidden = 1, worst_bound = 1;
    std::size_t paced = 0;
    for (const KernelSpeed& k : t.kernels) {
      if (k.speedup < kPacedGain || k.median_us <= 0 || k.median_us >= pace) continue;
      ++paced;
      const double bound = std::max(pace, k.reference_median_us) / std::max(pace, k.median_us);
      if (!worst || k.speedup / bound > worst_hidden) {
        worst = &k;
        worst_hidden = k.speedup / bound;
        worst_bound = bound;
      }
    }
    if (paced <= most) continue;
    most = paced;
    out = "at " + t.size + " the harness took " + fixed_point(pace, 2) + " us to issue a launch, longer than " +
          worst->name + " now runs (" + fixed_point(worst->reference_median_us, 2) + " to " +
          fixed_point(worst->median_us, 2) + " us, " + fixed_point(worst->speedup, 3) + "x)" +
          (paced > 1 ? " and " + std::to_string(paced - 1) + " more of the call's " +
                           std::to_string(t.kernels.size()) + " kernels"
                     : "") +
          ": a loop that launches one of them back to back is paced by its launches, not the kernel (a loop of " +
          worst->name + " alone at that pace: at most " + fixed_point(worst_bound, 3) + "x)";
  }
  return out;
}

}  // namespace kernelblaster
