// What a run's verified and failed points say about settings a hidden
// constraint ties together (policy/tied_moves.h).
#include <gtest/gtest.h>

#include "policy/tied_moves.h"

namespace kernelblaster::policy {
namespace {

// SGEMM_CUDA's kernel 8 in ranks (BM, BN, BK, TM, TN): verified where
// BM == BN and BK + TM + TN == BN + 4; the author's point is (2,2,2,2,2).
const TiedMoves::Ranks kAuthor = {2, 2, 2, 2, 2};

TEST(TiedMoves, TheVerifiedMovesSpanWhatTheConstraintsLeaveFree) {
  // TM up with TN down, and BK down with TN up, verified; BM alone and
  // BK alone failed.
  const TiedMoves t({kAuthor, {2, 2, 2, 3, 1}, {2, 2, 1, 2, 3}}, {{1, 2, 2, 2, 2}, {2, 2, 1, 2, 2}});
  ASSERT_TRUE(t.tied());
  EXPECT_TRUE(t.within({0, 0, 1, -1, 0})) << "BK up with TM down: the two verified moves combined";
  EXPECT_TRUE(t.within({0, 0, -2, 1, 1}));
  EXPECT_FALSE(t.within({0, 0, 0, 1, 0}));
  // TM down is BK down's class once TM-for-TN and BK-for-TN are known to
  // verify (the same sum falls); TM up is a class nothing has tried.
  EXPECT_TRUE(t.like_a_failure({0, 0, 0, -1, 0}));
  EXPECT_TRUE(t.like_a_failure({0, 0, 0, 0, -1}));
  EXPECT_FALSE(t.like_a_failure({0, 0, 0, 1, 0}));
  EXPECT_TRUE(t.like_a_failure({-1, 0, 0, 0, 0}));
  // BM, BN and BK together: a class nothing has tried.
  EXPECT_FALSE(t.like_a_failure({-1, -1, -1, 0, 0}));
  EXPECT_FALSE(t.within({-1, -1, -1, 0, 0}));
  // The verified moves, both ways, to make again from the best.
  EXPECT_NE(std::find(t.moves().begin(), t.moves().end(), TiedMoves::Ranks{0, 0, 0, -1, 1}), t.moves().end());
}

TEST(TiedMoves, FreeSettingsAreNoTie) {
  // Every single step verified: the moves span every setting, nothing is tied.
  const TiedMoves t({{1, 1}, {2, 1}, {1, 2}}, {{0, 0}});
  EXPECT_FALSE(t.tied());
  EXPECT_TRUE(t.within({3, -2}));
  EXPECT_FALSE(t.like_a_failure({3, -2}));
}

TEST(TiedMoves, NothingVerifiedBesideOneOriginalSaysNothing) {
  const TiedMoves t({kAuthor}, {{1, 2, 2, 2, 2}});
  EXPECT_FALSE(t.tied());
  EXPECT_FALSE(t.like_a_failure({1, 0, 0, 0, 0}));
  const TiedMoves none({}, {});
  EXPECT_FALSE(none.tied());
}

// A failed try whose move lies in the span (a range's end, as a tile too
// big for its registers) marks no class.
TEST(TiedMoves, AFailureWithinTheSpanMarksNoClass) {
  const TiedMoves t({kAuthor, {2, 2, 2, 3, 1}}, {{2, 2, 2, 4, 0}});
  ASSERT_TRUE(t.tied());
  EXPECT_FALSE(t.like_a_failure({0, 0, 0, 3, -3}));
  EXPECT_TRUE(t.within({0, 0, 0, 3, -3}));
}

}  // namespace
}  // namespace kernelblaster::policy
