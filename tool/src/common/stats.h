// Order statistics of timing samples.
#pragma once

#include <vector>

namespace kernelblaster {

struct Summary {
  int n = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  double iqr() const { return q3 - q1; }
};

// Quantiles by linear interpolation between order statistics (type 7, as
// numpy's default). An empty sample gives all zeros.
Summary summarize(std::vector<double> samples);
double quantile_sorted(const std::vector<double>& sorted, double q);

}  // namespace kernelblaster
