// Moves that lost wherever a run made them (policy/losing_moves.h).
#include <gtest/gtest.h>

#include <cmath>

#include "policy/losing_moves.h"

namespace kernelblaster::policy {
namespace {

// Two settings (BK, TM). BK from rank 0 to 1 was made from three points and
// lost 10% each time; TM from 0 to 1 lost once and won once.
const std::vector<LosingMoves::Ranks> kPoints = {{0, 0}, {1, 0}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {0, 1}};
const std::vector<double> kY = {0.0, std::log(0.9), 0.2, 0.2 + std::log(0.9), 0.3, 0.3 + std::log(0.9), 0.1};

TEST(LosingMoves, AMoveThatLostEveryTimeIsChargedItsMeanLoss) {
  const LosingMoves losing(kPoints, kY, 3);
  EXPECT_NEAR(losing.charge({0, 4}, {1, 4}), std::log(0.9), 1e-12) << "BK 0 -> 1 from a point it was never made from";
  EXPECT_DOUBLE_EQ(losing.charge({1, 4}, {0, 4}), 0.0) << "the other way it won every time";
  EXPECT_DOUBLE_EQ(losing.charge({0, 2}, {0, 1}), 0.0) << "TM 2 -> 1: made once";
}

TEST(LosingMoves, TooFewMakingsOrOneWinIsNoLosingMove) {
  EXPECT_DOUBLE_EQ(LosingMoves(kPoints, kY, 4).charge({0, 4}, {1, 4}), 0.0) << "made 3 times, 4 asked";
  std::vector<double> y = kY;
  y[5] = 0.35;  // BK 0 -> 1 from (0, 3) won once
  EXPECT_DOUBLE_EQ(LosingMoves(kPoints, y, 3).charge({0, 4}, {1, 4}), 0.0);
}

TEST(LosingMoves, AMoveOfSeveralSettingsPaysItsWorstPartOnly) {
  // (BK, TM): BK 0 -> 1 lost 10% from three points, TM 0 -> 2 lost 20% from three.
  const double b = std::log(0.9), t = std::log(0.8);
  const LosingMoves losing({{0, 0}, {1, 0}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {3, 0}, {3, 2}},
                           {0.0, b, t, b + t, 0.2, 0.2 + b, 0.1, 0.1 + t}, 3);
  EXPECT_NEAR(losing.charge({0, 0}, {0, 2}), t, 1e-12);
  EXPECT_NEAR(losing.charge({0, 0}, {1, 0}), b, 1e-12);
  EXPECT_NEAR(losing.charge({0, 0}, {1, 2}), t, 1e-12) << "the worse of the two, not their sum";
}

TEST(LosingMoves, NothingMeasuredChargesNothing) {
  const LosingMoves none({}, {}, 1);
  EXPECT_DOUBLE_EQ(none.charge({0, 0}, {1, 1}), 0.0);
}

}  // namespace
}  // namespace kernelblaster::policy
