#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "policy/default_policy.h"
#include "tuner/sample_contexts.h"

namespace kernelblaster::policy {
namespace {

using tuner::sample_contexts;
using tuner::sample_result;
using tuner::SampleContext;

TEST(DefaultPolicy, WeightsFollowPredictedGainAndUncertainty) {
  KbEstimate unknown;  // predicted 1.0, no confidence
  KbEstimate good{10, 8, 1.4, 1.4, 0.9};
  KbEstimate bad{10, 1, 0.7, 0.7, 0.9};
  EXPECT_NEAR(selection_weight(unknown), 0.1, 1e-12);
  EXPECT_GT(selection_weight(good), 3 * selection_weight(unknown));
  EXPECT_GT(selection_weight(bad), 0);  // every action keeps a chance
  EXPECT_LT(selection_weight(bad), selection_weight(unknown));
  // Failed tries (no verified measurement) weigh the action down; measured
  // neutral tries do not.
  KbEstimate failing{2, 0, 1.0, 1.0, 0.5, 2};
  KbEstimate neutral{2, 0, 1.0, 1.0, 0.5, 0};
  EXPECT_NEAR(selection_weight(neutral), 0.1, 1e-12);
  EXPECT_NEAR(selection_weight(failing), 0.1 / 3, 1e-12);
  KbEstimate good_then_failed{3, 1, 1.4, 1.4, 0.6, 2};  // one gain in three tries
  EXPECT_NEAR(selection_weight(good_then_failed), 0.5 * 2 / 4, 1e-12);
  KbEstimate inconsistent{1, 0, 1.0, 1.0, 0.5, 5};  // more failures than tries: as all failed
  EXPECT_NEAR(selection_weight(inconsistent), 0.05, 1e-12);
  KbEstimate nan{0, 0, 1, std::nan(""), 0};
  EXPECT_GT(selection_weight(nan), 0);
}

TEST(DefaultPolicy, OrdersEveryActionDeterministically) {
  Context ctx = sample_contexts(3).front().ctx;
  ctx.original.clear();  // no original to start from: the weighted draw orders everything
  auto p = make_default_policy();
  std::vector<std::string> order = p->select(ctx);
  EXPECT_EQ(order.size(), ctx.actions.size());
  EXPECT_EQ(make_default_policy()->select(ctx), order);
  ctx.seed = 4;
  EXPECT_NE(p->select(ctx), order);
}

// With the author's settings known, the first picks change one of them:
// the KB's favourites first, every pick one setting away from the original.
TEST(DefaultPolicy, StartsInTheOriginalsNeighbourhood) {
  Context ctx = sample_contexts(3).front().ctx;
  ASSERT_FALSE(ctx.original.empty());
  const std::vector<std::string> picks = make_default_policy()->select(ctx);
  ASSERT_FALSE(picks.empty());
  EXPECT_LT(picks.size(), ctx.actions.size());
  for (const std::string& id : picks) {
    auto a = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& x) { return x.id == id; });
    ASSERT_NE(a, ctx.actions.end());
    int changed = 0;
    for (const auto& [name, value] : a->settings) changed += !ctx.original.count(name) || ctx.original.at(name) != value;
    EXPECT_EQ(changed, 1) << id;
  }
}

TEST(DefaultPolicy, FirstPickFollowsTheWeights) {
  Context ctx;
  for (double predicted : {1.0, 1.5}) {
    Action a;
    a.id = predicted > 1 ? "good" : "unknown";
    a.kb.predicted_speedup = predicted;
    a.kb.confidence = predicted > 1 ? 1.0 : 0.0;
    ctx.actions.push_back(a);
  }
  // Weights 0.1 and 0.5: "good" first with probability 5/6.
  std::map<std::string, int> first;
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    ctx.seed = seed;
    first[weighted_random_order(ctx).front()]++;
  }
  EXPECT_NEAR(first["good"] / 3000.0, 5.0 / 6.0, 0.03);
}

// An action keeps its draw from call to call: with weights unchanged, the
// order after taking the first pick is the rest of the order before.
TEST(DefaultPolicy, TheOrderStaysPutAsActionsAreTaken) {
  Context ctx;
  for (int i = 0; i < 20; ++i) {
    Action a;
    a.id = "T=" + std::to_string(i);
    a.settings["T"] = std::to_string(i);
    ctx.actions.push_back(a);
  }
  ctx.seed = 7;
  std::vector<std::string> before = weighted_random_order(ctx);
  ctx.actions.erase(std::find_if(ctx.actions.begin(), ctx.actions.end(),
                                 [&](const Action& a) { return a.id == before.front(); }));
  std::vector<std::string> after = weighted_random_order(ctx);
  EXPECT_EQ(after, std::vector<std::string>(before.begin() + 1, before.end()));
}

// Flag variants of tunable values already measured (except those of the run's
// best) weigh a quarter: unseen tunable values come first far more often.
TEST(DefaultPolicy, UnseenTunableValuesComeBeforeFlagVariantsOfSeenOnes) {
  Context ctx;
  for (const char* v : {"64", "128"}) {
    Action plain, fast;
    plain.id = std::string("B=") + v;
    plain.settings["B"] = v;
    fast = plain;
    fast.id += ",fast";
    fast.settings["flags"] = "-use_fast_math";
    ctx.actions.push_back(plain);
    ctx.actions.push_back(fast);
  }
  HistoryEntry tried{"B=64,slow", AttemptEnd::verified, Status::ok, 0.9, 10, false, "", {{"B", "64"}, {"flags", "-O1"}}};
  ctx.history.push_back(tried);
  std::map<std::string, int> first;
  const int n = 4000;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    ctx.seed = seed;
    first[weighted_random_order(ctx).front()]++;
  }
  // Weights 0.025, 0.025, 0.1, 0.1: each B=128 action first with probability 0.4.
  EXPECT_NEAR(first["B=128"] / double(n), 0.4, 0.03);
  EXPECT_NEAR(first["B=64"] / double(n), 0.1, 0.03);
  // The same history where B=64 is the run's best: no penalty for its variants.
  ctx.history.front().speedup = 1.3;
  first.clear();
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    ctx.seed = seed;
    ctx.best_speedup = 1.3;
    first[weighted_random_order(ctx).front()]++;
  }
  EXPECT_NEAR(first["B=64"] / double(n), 0.25, 0.03);
}

TEST(DefaultPolicy, AcceptsImprovementsAndStopsWhenEmpty) {
  std::vector<SampleContext> samples = sample_contexts(1);
  const Context& ctx = samples[2].ctx;  // with history, best 1.31
  auto p = make_default_policy();
  HistoryEntry better{"x", AttemptEnd::verified, Status::ok, 1.4, 10, false, "", {}};
  HistoryEntry worse{"x", AttemptEnd::verified, Status::ok, 1.2, 10, false, "", {}};
  HistoryEntry wrong{"x", AttemptEnd::rejected, Status::wrong_result, 0, 0, false, "", {}};
  EXPECT_EQ(p->accept(ctx, better), true);
  EXPECT_EQ(p->accept(ctx, worse), false);
  EXPECT_EQ(p->accept(ctx, wrong), false);
  EXPECT_EQ(p->stop(ctx), std::nullopt);
  EXPECT_EQ(p->stop(samples[3].ctx), true);
  EXPECT_TRUE(p->select(samples[3].ctx).empty());
}

// Issue 72: the stopping rule a search spanning builds ends by. A part has
// converged once its best has not risen by more than kConvergedGain in as
// many tries again as it took to find it, at least kConvergedTries; ties
// and rises within the noise count as none, and a run with no original
// (the optimize loop's techniques) never converges by it.
TEST(DefaultPolicy, ConvergesOnceItsBestHasNotRisenForLongEnough) {
  Context ctx;
  ctx.original = {{"BLOCK_SIZE", "256"}};
  ctx.actions.push_back({});
  auto tries = [&](int n, double speedup, bool accepted) {
    for (int i = 0; i < n; ++i)
      ctx.history.push_back({"c" + std::to_string(ctx.history.size()), AttemptEnd::verified, Status::ok, speedup, 10,
                             accepted, "", {}});
  };
  tries(kConvergedTries - 1, 0.9, false);
  EXPECT_FALSE(converged(ctx));
  tries(1, 0.95, false);
  EXPECT_TRUE(converged(ctx));  // nothing beat the original in kConvergedTries tries
  EXPECT_EQ(make_default_policy()->stop(ctx), true);
  tries(1, 1.2, true);  // a rise at try 51: 51 more are needed
  tries(kConvergedTries, 1.201, true);  // within the noise: no rise
  EXPECT_FALSE(converged(ctx));
  tries(1, 0.9, false);
  EXPECT_TRUE(converged(ctx));
  ctx.original.clear();
  EXPECT_FALSE(converged(ctx));
}

}  // namespace
}  // namespace kernelblaster::policy
