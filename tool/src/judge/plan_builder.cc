#include "judge/plan_builder.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "profile/metric_sets.h"

namespace kernelblaster {

std::vector<RunRequest> correctness_runs(const std::vector<SizeDecl>& sizes, const std::vector<std::uint64_t>& seeds,
                                         bool include_validation_sizes, bool screening) {
  const std::size_t each = screening ? std::min<std::size_t>(1, seeds.size()) : seeds.size();
  std::vector<int> order;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (include_validation_sizes || !sizes[i].validation_only) order.push_back(static_cast<int>(i));
  std::vector<RunRequest> runs;
  for (int s : order)
    for (std::size_t k = 0; k < each; ++k) runs.push_back({s, seeds[k]});
  if (!seeds.empty())
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (!(screening && sizes[*it].validation_only)) runs.push_back({*it, seeds.front()});
  return runs;
}

double screen_share(const std::vector<SizeDecl>& sizes, int seeds, bool include_validation_sizes,
                    std::size_t timed_sizes) {
  const std::vector<std::uint64_t> each(static_cast<std::size_t>(std::max(1, seeds)), 1);
  const std::size_t screen = correctness_runs(sizes, each, include_validation_sizes, true).size() + timed_sizes;
  const std::size_t full =
      correctness_runs(sizes, each, include_validation_sizes, false).size() + timed_sizes * kTimedChecks;
  return full > 0 ? std::min(1.0, static_cast<double>(screen) / static_cast<double>(full)) : 1.0;
}

ProfileRequest profile_request(const HarnessReport& decl, profile::MetricSet set) {
  ProfileRequest req;
  req.set = profile::metric_set_name(set);  // the plan's JSON: a name
  req.metrics = profile::cupti_metrics(set);
  double best = -1;
  for (std::size_t i = 0; i < decl.sizes.size(); ++i) {
    if (decl.sizes[i].validation_only) continue;
    double elements = 0;
    for (const BufferDecl& b : decl.buffers) {
      auto it = b.elements_per_size.find(decl.sizes[i].label);
      if (it != b.elements_per_size.end()) elements += static_cast<double>(it->second);
    }
    if (elements > best) {
      best = elements;
      req.size = static_cast<int>(i);
    }
  }
  return req;
}

void choose_timed_inputs(TimingRequest& timing, std::uint64_t base, bool screening) {
  // Derived seeds lie far from the correctness runs' (base + i) and from
  // each other: the timed runs take timing.seed + i, the warm-up + 0x5000 + i.
  timing.seed = make_seeds(1, base ? (base ^ 0x6b62'7469'6d65'0000ull) : 0)[0];
  std::vector<std::uint64_t> seeds = make_seeds(static_cast<int>(kTimedChecks), base ? (base ^ 0x6b62'6368'6b00'0000ull) : 0);
  double early = 0.3, late = 0.65;
  if (base == 0) {
    std::random_device rd;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    early = 0.15 + 0.3 * u(rd);
    late = 0.5 + 0.35 * u(rd);
  }
  timing.checks = {{early, seeds[0]}, {late, seeds[1]}, {1.0, seeds[2]}};
  if (screening) timing.checks = {{late, seeds[1]}};
}

std::vector<int> back_to_back_calls(const HarnessReport& reference, std::size_t sizes) {
  std::vector<int> calls(sizes, 1);
  for (const TimingReport& t : reference.timings) {
    if (t.size < 0 || static_cast<std::size_t>(t.size) >= sizes || t.median_ns <= 0) continue;
    const double n = std::ceil(kBackToBackNs / t.median_ns);
    calls[static_cast<std::size_t>(t.size)] = static_cast<int>(std::clamp(n, 1.0, double{kMaxBackToBackCalls}));
  }
  return calls;
}

std::string calls_text(const std::vector<int>& calls, const HarnessReport& reference) {
  std::string out;
  for (const TimingReport& t : reference.timings) {
    if (t.size < 0 || static_cast<std::size_t>(t.size) >= calls.size()) continue;
    const std::size_t i = static_cast<std::size_t>(t.size);
    const std::string size = i < reference.sizes.size() ? reference.sizes[i].label : std::to_string(i);
    const int n = calls[i];
    out += (out.empty() ? std::to_string(n) + (n == 1 ? " call a run" : " calls a run") : ", " + std::to_string(n)) +
           " at " + size;
  }
  return out;
}

std::vector<std::uint64_t> make_seeds(int count, std::uint64_t base) {
  std::vector<std::uint64_t> seeds;
  if (base != 0) {
    for (int i = 0; i < count; ++i) seeds.push_back(base + static_cast<std::uint64_t>(i));
    return seeds;
  }
  std::random_device rd;
  std::set<std::uint64_t> seen;
  while (static_cast<int>(seeds.size()) < count) {
    std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    if (s != 0 && seen.insert(s).second) seeds.push_back(s);
  }
  return seeds;
}

}  // namespace kernelblaster
