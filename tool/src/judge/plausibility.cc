#include "judge/plausibility.h"

#include <algorithm>
#include <cstdio>

#include "runtime/compare.h"

namespace kernelblaster {
namespace {

// Bytes of the inputs (inout included) of one call at size `label`.
double input_bytes(const HarnessReport& r, const std::string& label) {
  double bytes = 0;
  for (const BufferDecl& b : r.buffers) {
    if (b.role != "input" && b.role != "inout") continue;
    ElementType t;
    auto it = b.elements_per_size.find(label);
    if (it == b.elements_per_size.end() || !dtype_from_name(b.dtype, &t)) continue;
    bytes += static_cast<double>(it->second) * static_cast<double>(dtype_size(t));
  }
  return bytes;
}

double declared_flops(const HarnessReport& r, const std::string& label) {
  for (const SizeDecl& s : r.sizes)
    if (s.label == label) return s.flops;
  return -1;
}

std::string rate(double per_s, const char* unit) {
  char buf[64];
  if (per_s >= 1e3) std::snprintf(buf, sizeof buf, "%.2f T%s", per_s / 1e3, unit);
  else std::snprintf(buf, sizeof buf, "%.1f G%s", per_s, unit);
  return buf;
}

Plausibility assess_size(const HarnessReport& reference, const SizeTiming& t, const profile::Ceilings& c) {
  Plausibility p;
  p.size = t.size;
  p.cost_us = t.cost_us > 0 ? t.cost_us : t.median_us;
  p.input_bytes = input_bytes(reference, t.size);
  p.flops = declared_flops(reference, t.size);
  if (p.cost_us <= 0) return p;
  p.assessed = true;
  p.bandwidth_gbs = p.input_bytes / (p.cost_us * 1e3);
  p.bandwidth_ceiling_gbs = c.dram_gbs;
  if (c.dram_gbs > 0) p.bandwidth_ratio = p.bandwidth_gbs / c.dram_gbs;
  p.compute_ceiling_gflops = std::max({c.fp32_gflops, c.fp16_gflops, c.tensor_gflops});
  if (p.flops > 0) {
    p.gflops = p.flops / (p.cost_us * 1e3);
    if (p.compute_ceiling_gflops > 0) p.compute_ratio = p.gflops / p.compute_ceiling_gflops;
  }
  p.implausible = p.bandwidth_ratio > kImplausibleRatio || p.compute_ratio > kImplausibleRatio;
  char pct[64];
  std::snprintf(pct, sizeof pct, "%.0f%%", 100 * p.bandwidth_ratio);
  p.line = "size " + t.size + ": its inputs read at " + rate(p.bandwidth_gbs, "B/s") + ", " + pct +
           " of this GPU's measured " + rate(c.dram_gbs, "B/s");
  if (p.flops > 0 && p.compute_ceiling_gflops > 0) {
    std::snprintf(pct, sizeof pct, "%.0f%%", 100 * p.compute_ratio);
    p.line += "; its declared work at " + rate(p.gflops, "FLOP/s") + ", " + pct + " of the best measured " +
              rate(p.compute_ceiling_gflops, "FLOP/s");
  }
  p.line += p.implausible ? ": beyond what this GPU can do for the original's work (looked at again with more seeds)"
                          : ": within this GPU's ceilings";
  return p;
}

}  // namespace

Plausibility assess_plausibility(const HarnessReport& reference, const std::vector<SizeTiming>& timing,
                                 const std::optional<profile::Ceilings>& ceilings) {
  Plausibility worst;
  if (timing.empty()) return worst;
  if (!ceilings) {
    worst.line = "plausibility not assessed: no ceilings measured for this GPU (run `kernelblaster gpu ceilings`)";
    return worst;
  }
  for (const SizeTiming& t : timing) {
    Plausibility p = assess_size(reference, t, *ceilings);
    if (!worst.assessed || std::max(p.bandwidth_ratio, p.compute_ratio) >
                               std::max(worst.bandwidth_ratio, worst.compute_ratio))
      worst = p;
  }
  return worst;
}

}  // namespace kernelblaster
