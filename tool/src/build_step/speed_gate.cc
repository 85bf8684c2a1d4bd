#include "build_step/speed_gate.h"

#include <cmath>

namespace kernelblaster::build_step {

SpeedJudgement judge_speed(const std::vector<SizeSample>& sizes, double min_speedup) {
  SpeedJudgement j;
  double log_mid = 0, log_low = 0, log_high = 0;
  int n = 0;
  for (const SizeSample& s : sizes) {
    if (s.reference_median_us <= 0 || s.median_us <= 0) continue;
    double q1 = s.q1_us > 0 ? s.q1_us : s.median_us;
    double q3 = s.q3_us > 0 ? s.q3_us : s.median_us;
    log_mid += std::log(s.reference_median_us / s.median_us);
    log_low += std::log(s.reference_median_us / q3);
    log_high += std::log(s.reference_median_us / q1);
    ++n;
  }
  if (n == 0) return j;
  j.speedup = std::exp(log_mid / n);
  j.low = std::exp(log_low / n);
  j.high = std::exp(log_high / n);
  if (j.speedup >= min_speedup) j.verdict = GateVerdict::pass;
  else if (j.high >= min_speedup) j.verdict = GateVerdict::remeasure;
  else j.verdict = GateVerdict::fail;
  return j;
}

SpeedJudgement judge_combined(const SpeedJudgement& first, const SpeedJudgement& second, double min_speedup) {
  SpeedJudgement j;
  if (first.speedup <= 0 || second.speedup <= 0) return j;
  j.speedup = std::sqrt(first.speedup * second.speedup);
  j.low = std::sqrt(first.low * second.low);
  j.high = std::sqrt(first.high * second.high);
  j.verdict = j.speedup >= min_speedup ? GateVerdict::pass : GateVerdict::fail;
  return j;
}

}  // namespace kernelblaster::build_step
