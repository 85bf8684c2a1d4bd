// Whether a measured call time is believable for the work the original's
// calls must do, on this GPU: every input read from DRAM at least once (the
// L2 is flushed after the inputs are made and before every timed run) and,
// where the harness declares them, its FLOPs; against the ceilings measured
// for this GPU (`kernelblaster gpu ceilings`, profile/ceilings_cache.h).
// Advice, never a verdict on its own: an algebraic simplification can skip
// work honestly. Far beyond a ceiling (kImplausibleRatio) the evaluator
// looks again with more fresh seeds before it believes the speedup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "judge/result.h"
#include "profile/roofline.h"

namespace kernelblaster {

// Attained rate over the ceiling beyond which a time is implausible: the
// inputs' bytes at twice the measured copy bandwidth, or the declared FLOPs
// at twice the best measured compute rate (mma.sync's: wgmma on Hopper
// exceeds it honestly, though not twice over).
constexpr double kImplausibleRatio = 2.0;

// `reference`: the original's report (its buffers per size, the declared
// FLOPs); `timing`: the candidate's per size; `ceilings`: this GPU's, absent
// where none were measured. The slowest-looking size decides (the smallest
// ratio would hide nothing: the largest one is reported).
Plausibility assess_plausibility(const HarnessReport& reference, const std::vector<SizeTiming>& timing,
                                 const std::optional<profile::Ceilings>& ceilings);

}  // namespace kernelblaster
