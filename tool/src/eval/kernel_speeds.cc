#include "eval/kernel_speeds.h"

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
  flat = flat.substr(0, flat.find('('));
  const std::size_t space = flat.rfind(' ');
  return space == std::string::npos ? flat : flat.substr(space + 1);
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
    s.slower = c.median_ns > r.median_ns * kKernelSlowerLimit && c.q1_ns > r.q3_ns;
    out.push_back(s);
  }
  return out;
}

std::string slower_kernel(const std::vector<SizeTiming>& timing) {
  for (const SizeTiming& t : timing)
    for (const KernelSpeed& k : t.kernels)
      if (k.slower) return k.name + " " + fixed_point(k.speedup, 3) + "x at " + t.size;
  return "";
}

}  // namespace kernelblaster
