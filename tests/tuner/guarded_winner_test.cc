// The verdict on a guarded source (tuner/guarded_winner.h): the winner with
// its launchers run as written where it was slower.
#include "tuner/guarded_winner.h"

#include <gtest/gtest.h>

#include "fakes.h"

using namespace kernelblaster::tuner;
using kernelblaster::CandidateResult;
using kernelblaster::Status;
using kernelblaster::tuner::testing::failed;
using kernelblaster::tuner::testing::ok;

namespace {

GuardedLook one_winner() {
  GuardedLook g;
  g.slower = "call0, call1";
  g.as_written = "runSgemmWarptiling as written at call1, call0";
  return g;  // floor 1.0: the winner cleared --min-speedup already
}

}  // namespace

TEST(GuardedWinner, AGuardedSourceFasterThanTheOriginalIsKeptUnderTheBar) {
  // SGEMM_CUDA kernel 10 (H200): the winner 1.03x cleared 1.02x; its guarded
  // source measured 1.019x on a second look. Kept: it only takes back the
  // winner's slower shapes.
  const GuardedWinner w = judge_guarded(one_winner(), ok(1.019), "guarded text");
  EXPECT_TRUE(w.kept);
  EXPECT_FALSE(w.below_floor);
  EXPECT_EQ(w.text, "guarded text");
  EXPECT_EQ(w.line, "runSgemmWarptiling as written at call1, call0, where the winner was slower; 1.02x with it");
}

TEST(GuardedWinner, NotFasterThanTheOriginalTheRunKeepsTheOriginal) {
  const GuardedWinner w = judge_guarded(one_winner(), ok(0.995), "guarded text");
  EXPECT_FALSE(w.kept);
  EXPECT_TRUE(w.below_floor);
  EXPECT_TRUE(w.text.empty());
  EXPECT_EQ(w.line,
            "slower at call0, call1, and with runSgemmWarptiling as written at call1, call0 it measured 0.99x, "
            "below 1.00x");
}

TEST(GuardedWinner, AGuardedSourceThatFailsLeavesTheWinnerAsItIsAndSaysWhy) {
  const GuardedWinner broken = judge_guarded(one_winner(), failed(Status::wrong_result, "C[3] off"), "t");
  EXPECT_FALSE(broken.kept);
  EXPECT_FALSE(broken.below_floor);
  EXPECT_EQ(broken.line,
            "slower at call0, call1, where the original is not kept: runSgemmWarptiling as written at call1, call0 "
            "failed: wrong_result: C[3] off");
  CandidateResult slowing = ok(1.05);
  slowing.slower_kernel = "sgemmWarptiling 0.97x";
  const GuardedWinner slower = judge_guarded(one_winner(), slowing, "t");
  EXPECT_FALSE(slower.kept);
  EXPECT_NE(slower.line.find("made a kernel slower: sgemmWarptiling 0.97x"), std::string::npos) << slower.line;
}

TEST(GuardedWinner, AComposedSourceIsHeldToItsFloorOnTheWholeHarness) {
  GuardedLook g = one_winner();
  g.whole = true;
  g.floor = 0.99;
  g.stayed = "a launcher whose block the harness replays";
  EXPECT_TRUE(judge_guarded(g, ok(0.995), "t").kept);
  EXPECT_NE(judge_guarded(g, ok(0.995), "t").line.find("(not guarded: a launcher whose block"), std::string::npos);
  const GuardedWinner low = judge_guarded(g, ok(0.98), "t");
  EXPECT_TRUE(low.below_floor);
  EXPECT_NE(low.line.find("measured 0.98x on the whole harness, below 0.99x"), std::string::npos) << low.line;
}
