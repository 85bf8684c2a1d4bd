// Numbers as the reports write them.
#pragma once

#include <cmath>
#include <string>

#include "common/text.h"

namespace kernelblaster::report {

// common's fixed_point, and "-" for a value that is not a number.
inline std::string fixed(double v, int decimals) { return std::isfinite(v) ? fixed_point(v, decimals) : "-"; }

// "1.378x"
inline std::string speedup_text(double v) { return fixed(v, 3) + "x"; }

}  // namespace kernelblaster::report
