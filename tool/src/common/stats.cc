#include "common/stats.h"

#include <algorithm>
#include <cmath>

namespace kernelblaster {

double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  double pos = q * static_cast<double>(s.size() - 1);
  std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

Summary summarize(std::vector<double> samples) {
  Summary out;
  if (samples.empty()) return out;
  std::sort(samples.begin(), samples.end());
  out.n = static_cast<int>(samples.size());
  out.median = quantile_sorted(samples, 0.5);
  out.q1 = quantile_sorted(samples, 0.25);
  out.q3 = quantile_sorted(samples, 0.75);
  out.min = samples.front();
  out.max = samples.back();
  return out;
}

}  // namespace kernelblaster
