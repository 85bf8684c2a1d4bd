#include "judge/candidate_result.h"

#include <algorithm>
#include <cmath>

#include "judge/kernel_speeds.h"

namespace kernelblaster {

CandidateResult candidate_result_of(const EvalResult& r) {
  CandidateResult c;
  c.status = r.status;
  c.detail = r.detail;
  c.speedup = r.status == Status::ok ? r.speedup : 0.0;
  medians_of(r, &c.median_us, &c.reference_median_us);
  c.eval_s = r.eval_seconds;
  c.screen_share = r.screen_share;
  if (r.status == Status::ok) {
    c.slower_kernel = r.slower_kernel;
    c.slower_at_a_size = r.slower_at_a_size;
    c.other_sizes = r.other_sizes;
    c.launch_paced = r.launch_paced;
    c.flushed_speedup = r.flushed_speedup;
    c.back_to_back_speedup = r.back_to_back_speedup;
    for (const SizeTiming& t : r.timing)
      if (t.speedup > 0) c.sizes.push_back({t.size, t.speedup, t.validation_only});
  }
  if (r.status == Status::ok)
    for (const KernelOverSizes& k : kernels_over_sizes(r.timing)) {
      auto [at, fresh] = c.kernel_speedups.emplace(k.name, k.speedup);
      if (!fresh) at->second = std::min(at->second, k.speedup);
    }
  if (!c.slower_kernel.empty())
    for (const KernelOverSizes& k : kernels_over_sizes(r.timing))
      if (k.slower && (c.slowed_kernel_speedup == 0 || k.speedup < c.slowed_kernel_speedup))
        c.slowed_kernel_speedup = k.speedup;
  c.memcheck = r.memcheck;
  for (const auto* phases : {&r.phase_seconds, &r.process_phase_seconds})
    for (const auto& [name, seconds] : *phases) c.phases_s[name] += seconds;
  return c;
}

void medians_of(const EvalResult& r, double* candidate_us, double* reference_us) {
  double lc = 0, lr = 0;
  int n = 0;
  for (const SizeTiming& t : r.timing) {
    if (t.validation_only || t.median_us <= 0 || t.reference_median_us <= 0) continue;
    lc += std::log(t.median_us);
    lr += std::log(t.reference_median_us);
    ++n;
  }
  *candidate_us = n ? std::exp(lc / n) : 0.0;
  *reference_us = n ? std::exp(lr / n) : 0.0;
}

}  // namespace kernelblaster
