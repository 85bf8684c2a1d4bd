#include "report/roofline_chart.h"

#include <algorithm>

#include "report/format.h"

namespace kernelblaster::report {

std::optional<Chart> roofline_chart(const nlohmann::json& m, double speedup) {
  const double intensity = m.value("arithmetic_intensity", 0.0), gf = m.value("achieved_gflops", 0.0);
  const double bw_pct = m.value("bandwidth_pct_of_peak", 0.0), gf_pct = m.value("flops_pct_of_peak", 0.0);
  if (intensity <= 0 || gf <= 0 || bw_pct <= 0 || gf_pct <= 0) return std::nullopt;
  const double bandwidth = m.value("achieved_bandwidth_gbs", 0.0) * 100 / bw_pct, compute = gf * 100 / gf_pct;
  const double ridge = compute / bandwidth;  // FLOP per byte where the two roofs meet
  const double lo = std::min(ridge, intensity) / 10, hi = std::max(ridge, intensity) * 10;
  Chart c{"roofline", "Roofline of this GPU (measured ceilings)", "arithmetic intensity (FLOP/byte)", "GFLOP/s", {}, 0,
          true};
  c.series.push_back(Series{"roof: " + fixed(bandwidth, 0) + " GB/s, " + fixed(compute, 0) + " GFLOP/s",
                            {{lo, lo * bandwidth}, {ridge, compute}, {hi, compute}}});
  c.series.push_back(Series{"original", {{intensity, gf}}, false, true});
  if (speedup > 1) c.series.push_back(Series{"winner", {{intensity, gf * speedup}}, false, true});
  return c;
}

}  // namespace kernelblaster::report
