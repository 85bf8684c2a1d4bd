// A kernel under the roofline of the GPU that ran it, as a log-log chart:
// the roof (bandwidth times arithmetic intensity, up to the compute peak),
// the original where its profile puts it, and the winner, which does the
// same work in less time, straight above it. The peaks come back from the
// original's own metrics (profile/roofline.h: its bandwidth and FLOP rate
// over their shares of the peaks).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "report/document.h"

namespace kernelblaster::report {

// `metrics`: the original's profile; `speedup`: the winner's over it (no
// winner drawn at 1 or below). None where a peak or the arithmetic
// intensity is unknown (no ceilings measured, no FLOPs declared).
std::optional<Chart> roofline_chart(const nlohmann::json& metrics, double speedup);

}  // namespace kernelblaster::report
