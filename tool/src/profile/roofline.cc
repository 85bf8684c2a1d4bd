#include "profile/roofline.h"

#include <algorithm>

namespace kernelblaster::profile {

std::map<std::string, double> roofline_position(double flops, double bytes, double duration_us,
                                                const Ceilings& c, bool uses_tensor_cores) {
  std::map<std::string, double> m;
  if (duration_us <= 0) return m;
  double seconds = duration_us * 1e-6;
  double compute_peak = uses_tensor_cores && c.tensor_gflops > 0 ? c.tensor_gflops : c.fp32_gflops;
  if (bytes > 0) {
    m["achieved_bandwidth_gbs"] = bytes / seconds / 1e9;
    if (c.dram_gbs > 0) m["bandwidth_pct_of_peak"] = 100.0 * m["achieved_bandwidth_gbs"] / c.dram_gbs;
  }
  if (flops >= 0 && (flops > 0 || bytes > 0)) {
    m["achieved_gflops"] = flops / seconds / 1e9;
    if (compute_peak > 0) m["flops_pct_of_peak"] = 100.0 * m["achieved_gflops"] / compute_peak;
  }
  if (flops >= 0 && bytes > 0) {
    double intensity = flops / bytes;
    m["arithmetic_intensity"] = intensity;
    if (c.dram_gbs > 0 && compute_peak > 0) {
      // The roof at this intensity; the kernel's FLOP rate (or, with no
      // FLOPs, its bandwidth) as a share of it.
      double roof = std::min(compute_peak, intensity * c.dram_gbs);
      m["roofline_bound_pct"] = flops > 0 ? 100.0 * m["achieved_gflops"] / roof : m["bandwidth_pct_of_peak"];
      m["memory_bound"] = intensity * c.dram_gbs < compute_peak ? 1 : 0;
    }
  }
  return m;
}

}  // namespace kernelblaster::profile
