// The performance gate's decision, kept apart from the measuring so it is
// tested without a GPU. Timing noise must not flap the gate: a median that
// misses the threshold while the IQR-based interval still reaches it is
// measured once more, and the two runs decide together.
#pragma once

#include <vector>

namespace kernelblaster::build_step {

struct SizeSample {
  double reference_median_us = 0;
  double median_us = 0, q1_us = 0, q3_us = 0;  // the tuned source
};

enum class GateVerdict { pass, fail, remeasure };

struct SpeedJudgement {
  GateVerdict verdict = GateVerdict::fail;
  double speedup = 0;  // geometric mean over sizes of reference median / median
  double low = 0;      // the same with the tuned q3 (slow end of its IQR)
  double high = 0;     // the same with the tuned q1 (fast end)
};

// pass: speedup >= min_speedup; remeasure: the median misses but high
// reaches it; fail otherwise (and for no usable sizes).
SpeedJudgement judge_speed(const std::vector<SizeSample>& sizes, double min_speedup);

// After a re-measurement: pass when the geometric mean of both runs'
// speedups reaches min_speedup. Never answers remeasure.
SpeedJudgement judge_combined(const SpeedJudgement& first, const SpeedJudgement& second, double min_speedup);

}  // namespace kernelblaster::build_step
