// Numbers as the reports write them.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace kernelblaster::report {

inline std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "1.378x"
inline std::string speedup_text(double v) { return fixed(v, 3) + "x"; }

}  // namespace kernelblaster::report
