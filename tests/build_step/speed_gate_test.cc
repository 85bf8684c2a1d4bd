#include "build_step/speed_gate.h"

#include <gtest/gtest.h>

namespace kernelblaster::build_step {
namespace {

TEST(SpeedGate, ClearPassAndClearFail) {
  EXPECT_EQ(judge_speed({{100, 50, 48, 52}}, 1.5).verdict, GateVerdict::pass);    // 2x
  EXPECT_EQ(judge_speed({{100, 95, 94, 96}}, 1.5).verdict, GateVerdict::fail);    // 1.05x, tight IQR
}

TEST(SpeedGate, NoisyNearMissIsMeasuredAgain) {
  // Median 100/105 = 0.95x, but the fast end of the IQR reaches 1.0x.
  SpeedJudgement j = judge_speed({{100, 105, 95, 115}}, 1.0);
  EXPECT_EQ(j.verdict, GateVerdict::remeasure);
  EXPECT_NEAR(j.high, 100.0 / 95, 1e-9);
  EXPECT_NEAR(j.low, 100.0 / 115, 1e-9);
  // Together with a second run at 1.1x: sqrt(0.952 * 1.1) = 1.023 >= 1.0.
  EXPECT_EQ(judge_combined(j, judge_speed({{110, 100, 98, 102}}, 1.0), 1.0).verdict, GateVerdict::pass);
  // With a second run at 1.0x: sqrt(0.952 * 1.0) < 1.0.
  EXPECT_EQ(judge_combined(j, judge_speed({{100, 100, 99, 101}}, 1.0), 1.0).verdict, GateVerdict::fail);
}

TEST(SpeedGate, GeometricMeanOverSizes) {
  SpeedJudgement j = judge_speed({{200, 100, 100, 100}, {100, 200, 200, 200}}, 1.0);  // 2x and 0.5x
  EXPECT_NEAR(j.speedup, 1.0, 1e-12);
  EXPECT_EQ(j.verdict, GateVerdict::pass);
}

TEST(SpeedGate, NothingMeasuredFails) {
  EXPECT_EQ(judge_speed({}, 1.0).verdict, GateVerdict::fail);
  EXPECT_EQ(judge_speed({{0, 0, 0, 0}}, 1.0).verdict, GateVerdict::fail);
}

}  // namespace
}  // namespace kernelblaster::build_step
