// A line chart as inline SVG: axes with round ticks, one polyline (or
// staircase) per series, a circle per point carrying data-x and data-y.
#pragma once

#include <string>

#include "report/document.h"

namespace kernelblaster::report {

std::string svg_chart(const Chart& chart);

// Up to about `count` round tick values covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int count);

}  // namespace kernelblaster::report
