// The default policy learns within a run: once enough is measured, a model
// of the run's own measurements leads the search (policy/guided_search.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "policy/default_policy.h"
#include "policy/guided_search.h"

namespace kernelblaster::policy {
namespace {

// A 2-D grid of tunables X, Y (1..n each) and a flag dimension; the
// speedup of a point is `f`; 0 means the try fails (not verified).
struct Grid {
  int n = 24;
  std::function<double(int, int, bool)> f;
  Context fresh(std::uint64_t seed) const {
    Context ctx;
    ctx.state = "unclassified";
    ctx.seed = seed;
    for (int x = 1; x <= n; ++x)
      for (int y = 1; y <= n; ++y)
        for (bool fm : {false, true}) {
          Action a;
          a.id = "X=" + std::to_string(x) + ",Y=" + std::to_string(y) + (fm ? ",-use_fast_math" : "");
          a.technique = "block_size_adaptation";
          a.settings = {{"X", std::to_string(x)}, {"Y", std::to_string(y)}};
          if (fm) a.settings["flags"] = "-use_fast_math";
          ctx.actions.push_back(a);
        }
    return ctx;
  }
};

// One run of `policy` on `grid`: takes its first pick each time. Returns
// the evaluations needed to measure the optimum (budget + 1: never).
int evaluations_to_optimum(const Grid& g, Policy& policy, std::uint64_t seed, int budget) {
  Context ctx = g.fresh(seed);
  double opt = 0;
  for (const Action& a : ctx.actions) opt = std::max(opt, g.f(std::stoi(a.settings.at("X")), std::stoi(a.settings.at("Y")), a.settings.count("flags") > 0));
  for (int n = 1; n <= budget && !ctx.actions.empty(); ++n) {
    const std::vector<std::string> ids = policy.select(ctx);
    EXPECT_FALSE(ids.empty());
    auto it = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == ids.front(); });
    EXPECT_NE(it, ctx.actions.end()) << "picked an id that is not an untried action: " << ids.front();
    if (it == ctx.actions.end()) return budget + 1;
    const double s = g.f(std::stoi(it->settings.at("X")), std::stoi(it->settings.at("Y")), it->settings.count("flags") > 0);
    HistoryEntry h;
    h.action_id = it->id;
    h.settings = it->settings;
    h.technique = it->technique;
    h.end = AttemptEnd::verified;
    h.status = s > 0 ? Status::ok : Status::wrong_result;
    h.speedup = s;
    h.accepted = s > ctx.best_speedup;
    if (h.accepted) ctx.best_speedup = s;
    ctx.history.push_back(h);
    ctx.actions.erase(it);
    if (s >= opt) return n;
  }
  return budget + 1;
}

// The weighted draw alone: the default policy as it was before it learned.
class DrawOnly final : public Policy {
 public:
  std::string name() const override { return "draw"; }
  std::vector<std::string> select(const Context& ctx) override { return weighted_random_order(ctx); }
  std::optional<bool> accept(const Context&, const HistoryEntry&) override { return std::nullopt; }
  std::optional<bool> stop(const Context&) override { return std::nullopt; }
};

// A smooth landscape with one peak away from the middle, a region that
// fails, and fast math worth a little.
Grid peaked() {
  Grid g;
  g.f = [](int x, int y, bool fm) {
    if (x + y > 44) return 0.0;  // e.g. too many threads: does not build
    const double dx = (x - 17) / 6.0, dy = (y - 19) / 6.0;
    return (0.5 + 1.5 * std::exp(-(dx * dx + dy * dy))) * (fm ? 1.03 : 1.0);
  };
  return g;
}

TEST(GuidedSearch, WaitsForEnoughMeasurements) {
  Grid g = peaked();
  Context ctx = g.fresh(1);
  GuidedSearch search;
  EXPECT_TRUE(search.next(ctx).empty());
  for (int i = 0; i < 9; ++i) {
    HistoryEntry h;
    h.action_id = ctx.actions.back().id;
    h.settings = ctx.actions.back().settings;
    h.speedup = 1.0 + i * 0.01;
    ctx.history.push_back(h);
    ctx.actions.pop_back();
  }
  EXPECT_TRUE(search.next(ctx).empty()) << "nine measurements are not enough to model";
}

// A failed try is a measurement too: it tells the model where not to go.
// Before, the model waited for ten verified tries, and on a space where
// almost every point fails (SGEMM_CUDA's kernels 5 and 6 as the one line
// finds them) the walk went on for a hundred.
TEST(GuidedSearch, FailedTriesCountTowardTheModelsStart) {
  Grid g = peaked();
  Context ctx = g.fresh(1);
  GuidedSearch search;
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(search.next(ctx).empty()) << i << " tries are not enough to model";
    HistoryEntry h;
    h.action_id = ctx.actions.back().id;
    h.settings = ctx.actions.back().settings;
    h.status = Status::wrong_result;
    ctx.history.push_back(h);
    ctx.actions.pop_back();
  }
  EXPECT_FALSE(search.next(ctx).empty()) << "ten failed tries and no original: the model leads";
}

TEST(GuidedSearch, PicksOnlyUntriedActionsAndIsDeterministic) {
  Grid g = peaked();
  auto run = [&](std::uint64_t seed) {
    std::unique_ptr<Policy> p = make_default_policy();
    Context ctx = g.fresh(seed);
    std::vector<std::string> order;
    for (int n = 0; n < 40; ++n) {
      std::vector<std::string> ids = p->select(ctx);
      std::set<std::string> unique(ids.begin(), ids.end());
      EXPECT_EQ(unique.size(), ids.size());
      auto it = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == ids.front(); });
      EXPECT_NE(it, ctx.actions.end());
      HistoryEntry h;
      h.action_id = it->id;
      h.settings = it->settings;
      h.speedup = g.f(std::stoi(it->settings.at("X")), std::stoi(it->settings.at("Y")), it->settings.count("flags") > 0);
      h.status = h.speedup > 0 ? Status::ok : Status::wrong_result;
      ctx.history.push_back(h);
      order.push_back(it->id);
      ctx.actions.erase(it);
    }
    return order;
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

// What issue 38 asked of the default: it learns from what it measures. On
// the same landscape, over the same seeds, it finds the optimum of 1,152
// points in well under half the evaluations the weighted draw alone needs.
TEST(GuidedSearch, FindsTheOptimumFarSoonerThanTheDraw) {
  Grid g = peaked();
  const int budget = 400;
  double guided = 0, drawn = 0;
  int guided_found = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::unique_ptr<Policy> p = make_default_policy();
    DrawOnly d;
    const int a = evaluations_to_optimum(g, *p, seed, budget), b = evaluations_to_optimum(g, d, seed, budget);
    guided += a, drawn += b;
    guided_found += a <= budget;
  }
  EXPECT_EQ(guided_found, 10);
  EXPECT_LT(guided, 0.5 * drawn) << "guided " << guided / 10 << " vs drawn " << drawn / 10 << " evaluations";
}

// The KB still leads the first picks: a configuration it predicts a gain
// for (weight 11 times an unknown one's) comes, over seeds, within the
// first eighth of 1,152 on average (a tenth of the middle rank).
TEST(GuidedSearch, TheKbWarmStartsTheFirstPicks) {
  Grid g = peaked();
  double rank = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Context ctx = g.fresh(seed);
    for (Action& a : ctx.actions)
      if (a.id == "X=17,Y=19,-use_fast_math") a.kb = KbEstimate{20, 18, 2.0, 2.0, 0.9};
    std::unique_ptr<Policy> p = make_default_policy();
    const std::vector<std::string> ids = p->select(ctx);
    rank += static_cast<double>(std::find(ids.begin(), ids.end(), "X=17,Y=19,-use_fast_math") - ids.begin());
  }
  EXPECT_LT(rank / 10, 1152 / 8.0);
}

// The author's settings (X=12, Y=12, no flags) as the run's original; its
// action leaves the space, as the tuner's original does.
Context with_original(const Grid& g, std::uint64_t seed) {
  Context ctx = g.fresh(seed);
  ctx.original = {{"X", "12"}, {"Y", "12"}};
  ctx.actions.erase(std::find_if(ctx.actions.begin(), ctx.actions.end(), [](const Action& a) { return a.id == "X=12,Y=12"; }));
  return ctx;
}

// Hand-tuned code: the author's settings (X=12, Y=12) sit in the region
// that works; the farther from it, the likelier a configuration fails (as
// SGEMM_CUDA's tiles crash when they no longer fit each other), and the
// best point is a few steps away. Speedups are over the original, as the
// tuner measures them.
Grid hand_tuned() {
  Grid g;
  auto time_of = [](int x, int y) {
    const double dx = (x - 15) / 3.0, dy = (y - 10) / 3.0;
    return 0.3 + 0.9 * std::exp(-(dx * dx + dy * dy));
  };
  g.f = [time_of](int x, int y, bool fm) {
    const int far = std::abs(x - 12) + std::abs(y - 12);
    if (far > 6 && (x * 7 + y * 13) % 10 < 8) return 0.0;  // most far points fail
    return time_of(x, y) / time_of(12, 12) * (fm ? 1.01 : 1.0);
  };
  return g;
}

// Issue 38 on SGEMM_CUDA: the search never looked near the author's
// settings. With the original known, the first picks are its neighbours,
// and the search climbs from there.
TEST(GuidedSearch, StartsFromTheOriginalAndClimbs) {
  Grid g = hand_tuned();
  const int budget = 60;
  double from_original = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto count = [&](Context ctx) {
      std::unique_ptr<Policy> p = make_default_policy();
      for (int n = 1; n <= budget; ++n) {
        const std::vector<std::string> ids = p->select(ctx);
        auto it = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == ids.front(); });
        const double s = g.f(std::stoi(it->settings.at("X")), std::stoi(it->settings.at("Y")), it->settings.count("flags") > 0);
        if (s >= g.f(15, 10, false)) return n;
        HistoryEntry h;
        h.action_id = it->id, h.settings = it->settings, h.speedup = s;
        h.status = s > 0 ? Status::ok : Status::wrong_result;
        ctx.history.push_back(h);
        ctx.actions.erase(it);
      }
      return budget + 1;
    };
    Context plain = g.fresh(seed);
    from_original += count(with_original(g, seed));
    without += count(plain);
  }
  EXPECT_LT(from_original, 0.6 * without) << from_original / 10 << " vs " << without / 10 << " evaluations";
}

// A flag is one step, as a tunable's value is: the original with fast math
// is among the original's neighbours, and every first pick is one step away.
TEST(GuidedSearch, EachFlagIsOneStepFromTheOriginal) {
  Grid g = hand_tuned();
  GuidedSearch search;
  std::set<std::string> seen;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Context ctx = with_original(g, seed);
    for (const std::string& id : search.next(ctx)) {
      seen.insert(id);
      const bool one_step = id == "X=12,Y=12,-use_fast_math" ||
                            ((id.rfind("X=12,", 0) == 0) != (id.find(",Y=12") != std::string::npos) &&
                             id.find("fast_math") == std::string::npos);
      EXPECT_TRUE(one_step) << id;
    }
  }
  EXPECT_TRUE(seen.count("X=12,Y=12,-use_fast_math"));
}

// A cold start: nothing measured, but the KB lists fast math's technique
// for the kernel's state. The walk's first step from the original is that
// one on every seed, not a step in the run's random order; the weighted
// draw's first picks are mostly such actions (half the space).
TEST(GuidedSearch, TheStatesTechniquesAreTheFirstStepsOfAColdStart) {
  Grid g = hand_tuned();
  GuidedSearch search;
  auto flagged_among_first = [](const std::vector<std::string>& ids) {
    int n = 0;
    for (std::size_t i = 0; i < 50 && i < ids.size(); ++i) n += ids[i].find("fast_math") != std::string::npos;
    return n;
  };
  int plain = 0, helped = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Context ctx = with_original(g, seed);
    plain += flagged_among_first(weighted_random_order(ctx));
    for (Action& a : ctx.actions)
      if (a.settings.count("flags")) a.kb.helps_state = 1;
    const std::vector<std::string> ids = search.next(ctx);
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids.front(), "X=12,Y=12,-use_fast_math") << "seed " << seed;
    helped += flagged_among_first(weighted_random_order(ctx));
  }
  EXPECT_LT(plain, 20 * 50 * 0.6);
  EXPECT_GT(helped, 20 * 50 * 0.6) << helped << " of 1000 vs " << plain;
}

// A step within the noise of the original (1.003x) does not move the walk:
// its next steps are still the original's neighbours. One clearly faster
// (1.05x) does.
TEST(GuidedSearch, AGainWithinTheNoiseDoesNotMoveTheWalk) {
  Grid g = hand_tuned();
  for (double gain : {1.003, 1.05}) {
    GuidedSearch search;
    Context ctx = with_original(g, 3);
    auto fm = std::find_if(ctx.actions.begin(), ctx.actions.end(), [](const Action& a) { return a.id == "X=12,Y=12,-use_fast_math"; });
    ASSERT_NE(fm, ctx.actions.end());
    HistoryEntry h;
    h.action_id = fm->id, h.settings = fm->settings, h.speedup = gain, h.status = Status::ok, h.accepted = true;
    ctx.history.push_back(h);
    ctx.best_speedup = gain;
    ctx.actions.erase(fm);
    const std::vector<std::string> ids = search.next(ctx);
    ASSERT_FALSE(ids.empty());
    for (const std::string& id : ids) {
      const bool around_fast_math = id.find("fast_math") != std::string::npos;
      EXPECT_EQ(around_fast_math, gain > 1.01) << gain << ": " << id;
    }
  }
}

// A step from the centre that failed puts the steps beyond it, on the same
// setting in the same direction, after every other neighbour: X=15 broke
// the kernel, so X=16..24 wait; X=13, 14 and the smaller values do not.
TEST(GuidedSearch, StepsBeyondAFailedOneComeLast) {
  Grid g = hand_tuned();
  int picks = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Context ctx = with_original(g, seed);
    HistoryEntry failed;
    failed.action_id = "X=15,Y=12";
    failed.settings = {{"X", "15"}, {"Y", "12"}};
    failed.status = Status::wrong_result;
    ctx.history.push_back(failed);
    ctx.actions.erase(std::find_if(ctx.actions.begin(), ctx.actions.end(), [](const Action& a) { return a.id == "X=15,Y=12"; }));
    GuidedSearch search;
    for (const std::string& id : search.next(ctx)) {
      ++picks;
      const int x = std::stoi(id.substr(2));
      EXPECT_FALSE(id.find(",Y=12") != std::string::npos && x > 15) << id;
    }
  }
  EXPECT_GT(picks, 100);  // most seeds walk (one turn in twenty explores)
}

}  // namespace
}  // namespace kernelblaster::policy

namespace kernelblaster::policy {
namespace {

// Seeds (of 10) whose first `picks` picks of the default policy on
// `space(seed)` reach a try `measure` calls a goal. A pick's ranks are read
// from its settings `dims` (values 8 << rank unless `plain`: rank + 1).
struct Landscape {
  std::function<Context(std::uint64_t)> space;
  std::vector<std::string> dims;
  bool plain = false;
  // The history entry of a try at these ranks (speedup, slowed kernel);
  // true when it is what the search looks for.
  std::function<bool(const std::vector<int>&, HistoryEntry&)> measure;
};

int seeds_reaching(const Landscape& l, int picks) {
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::unique_ptr<Policy> p = make_default_policy();
    Context ctx = l.space(seed);
    for (int n = 1; n <= picks && !ctx.actions.empty(); ++n) {
      const std::vector<std::string> ids = p->select(ctx);
      auto it = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == ids.front(); });
      EXPECT_NE(it, ctx.actions.end());
      if (it == ctx.actions.end()) break;
      std::vector<int> r;
      for (const std::string& d : l.dims) {
        const int v = std::stoi(it->settings.at(d));
        r.push_back(l.plain ? v - 1 : __builtin_ctz(v / 8));
      }
      HistoryEntry h;
      h.action_id = it->id, h.settings = it->settings, h.status = Status::ok;
      if (l.measure(r, h)) {
        ++found;
        break;
      }
      ctx.history.push_back(h);
      ctx.actions.erase(it);
    }
  }
  return found;
}

// SGEMM_CUDA's kernel 10 on an H200, in small: four tile settings of five
// values each, the author's choice in the middle. Within two settings of it
// everything runs near its speed, and one pair of single steps that each
// lose a little gains 6% together (a tile and its warp count); further away
// the tiles are far slower (on the GPU, 0.01x-0.7x). A search of a few
// dozen evaluations must cross the author's neighbours, not spend its turns
// on distant corners because one slow corner widened the measured spread.
double tiles(const std::vector<int>& r) {
  int changed = 0;
  for (int v : r) changed += v != 2;
  if (changed == 0) return 1.0;
  if (changed <= 2) {
    const bool a = r[0] == 3, b = r[1] == 3;
    if (a && b && changed == 2) return 1.06;
    return a ? 0.98 : b ? 0.97 : 0.93 + 0.007 * (r[2] + r[3]);
  }
  return 0.6 / changed;
}

Context tile_space(std::uint64_t seed) {
  Context ctx;
  ctx.state = "unclassified";
  ctx.seed = seed;
  for (int i = 0; i < 625; ++i) {
    std::vector<int> r = {i % 5, i / 5 % 5, i / 25 % 5, i / 125};
    if (r == std::vector<int>{2, 2, 2, 2}) continue;
    Action a;
    for (int d = 0; d < 4; ++d) a.settings["T" + std::to_string(d)] = std::to_string(8 << r[d]);
    for (const auto& [k, v] : a.settings) a.id += (a.id.empty() ? "" : ",") + k + "=" + v;
    a.technique = "block_size_adaptation";
    ctx.actions.push_back(a);
  }
  for (int d = 0; d < 4; ++d) ctx.original["T" + std::to_string(d)] = "32";
  return ctx;
}

TEST(GuidedSearch, ASlowCornerDoesNotPullTheSearchAwayFromTheAuthorsSteps) {
  const Landscape l{tile_space, {"T0", "T1", "T2", "T3"}, false, [](const std::vector<int>& r, HistoryEntry& h) {
                      h.speedup = tiles(r);
                      return h.speedup > 1.05;
                    }};
  EXPECT_GE(seeds_reaching(l, 30), 8) << "seeds that crossed the two good steps within 30 evaluations";
}


// A space whose constraints tie settings in pairs, as SGEMM_CUDA's kernel 10
// ties BN to WN and BM to WM ((BN/WN)·(BM/WM) warps): A+B and C+D must be 6
// (ranks 0..6), E, F, G are free (0..4). From the original (3,3,3,3,2,2,2),
// changing one of A..D alone is never valid; the gain is one coupled move
// on each pair (A up and B down: 1.04x; C down and D up: 1.04x; both:
// 1.08x), the free settings only lose, and the far corners crawl.
double coupled(const std::vector<int>& r) {
  const int da = r[0] - 3, dc = r[2] - 3;
  double s = 1.0;
  s *= da == 1 ? 1.04 : std::pow(0.9, std::abs(da));
  s *= dc == -1 ? 1.04 : std::pow(0.9, std::abs(dc));
  for (int d = 4; d < 7; ++d) s *= std::pow(0.97, std::abs(r[d] - 2));
  if (std::abs(da) >= 3 || std::abs(dc) >= 3) s *= 0.05;
  return s;
}

Context coupled_space(std::uint64_t seed) {
  Context ctx;
  ctx.state = "unclassified";
  ctx.seed = seed;
  const std::vector<std::string> names = {"A", "B", "C", "D", "E", "F", "G"};
  for (int a = 0; a <= 6; ++a)
    for (int c = 0; c <= 6; ++c)
      for (int free = 0; free < 125; ++free) {
        const std::vector<int> r = {a, 6 - a, c, 6 - c, free % 5, free / 5 % 5, free / 25};
        if (r == std::vector<int>{3, 3, 3, 3, 2, 2, 2}) continue;
        Action act;
        for (int d = 0; d < 7; ++d) act.settings[names[d]] = std::to_string(8 << r[d]);
        for (const auto& [k, v] : act.settings) act.id += (act.id.empty() ? "" : ",") + k + "=" + v;
        act.technique = "block_size_adaptation";
        ctx.actions.push_back(act);
      }
  for (int d = 0; d < 7; ++d) ctx.original[names[d]] = std::to_string(8 << (d < 4 ? 3 : 2));
  return ctx;
}

TEST(GuidedSearch, MovesThatConstraintsTieTogetherAreTriedNearTheBest) {
  const Landscape l{coupled_space, {"A", "B", "C", "D", "E", "F", "G"}, false,
                    [](const std::vector<int>& r, HistoryEntry& h) {
                      h.speedup = coupled(r);
                      return h.speedup > 1.07;
                    }};
  EXPECT_GE(seeds_reaching(l, 40), 8) << "seeds that made both coupled moves within 40 evaluations";
}


// SGEMM_CUDA's kernel 8 in small (H200, 2026-11-30): BM, BN (ranks 0..4,
// 32..512) and BK, TM, TN (0..4, 2..32) verify only where BM == BN and
// BK·TM·TN == 4·BN, which no static_assert states; 2% of the points
// verify. The best is four ranks from the author's (BM, BN and BK one down,
// TM up, TN down): a move of three settings that must be tried as one.
double tied_tiles(const std::vector<int>& r) {
  if (r[0] != r[1] || r[2] + r[3] + r[4] != r[1] + 4) return 0.0;
  const std::vector<int> best = {1, 1, 1, 3, 1};
  int off = 0;
  for (std::size_t d = 0; d < r.size(); ++d) off += std::abs(r[d] - best[d]);
  return std::exp(0.07 * (4 - off));
}

Context tied_space(std::uint64_t seed) {
  Context ctx;
  ctx.state = "unclassified";
  ctx.seed = seed;
  const std::vector<std::string> names = {"BM", "BN", "BK", "TM", "TN"};
  for (int i = 0; i < 3125; ++i) {
    const std::vector<int> r = {i % 5, i / 5 % 5, i / 25 % 5, i / 125 % 5, i / 625};
    if (r == std::vector<int>{2, 2, 2, 2, 2}) continue;
    Action a;
    for (int d = 0; d < 5; ++d) a.settings[names[d]] = std::to_string(8 << r[d]);
    for (const auto& [k, v] : a.settings) a.id += (a.id.empty() ? "" : ",") + k + "=" + v;
    a.technique = "block_size_adaptation";
    ctx.actions.push_back(a);
  }
  for (const std::string& n : names) ctx.original[n] = "32";
  return ctx;
}

// 10 of 10 seeds within 100 evaluations (3 within 60); 0 of 10 before the moves between
// verified points were read for ties (2026-11-30).
TEST(GuidedSearch, SettingsAHiddenConstraintTiesAreMovedTogether) {
  const Landscape l{tied_space, {"BM", "BN", "BK", "TM", "TN"}, false, [](const std::vector<int>& r, HistoryEntry& h) {
                      h.speedup = tied_tiles(r);
                      if (h.speedup == 0) h.status = Status::wrong_result;
                      return h.speedup > 1.27;
                    }};
  EXPECT_GE(seeds_reaching(l, 100), 8) << "seeds that reached the best within 100 evaluations";
}

// Two ways up from the original (4,4,2,2): along X the call gets faster as
// a whole but one of its kernels slower (as SGEMM_CUDA's WNITER=2: 1.03x,
// 0.973x at 2048), so nothing there is ever kept; along Y every kernel
// gets faster, less steeply. Z and W only lose.
struct TwoWays {
  double speedup = 1, slowed = 0;  // slowed: the slowed kernel's speedup, 0 when none
};
TwoWays two_ways(const std::vector<int>& r) {
  const int dx = r[0] - 4, dy = r[1] - 4;
  TwoWays t;
  t.speedup = std::exp(0.06 * dx - 0.004 * dx * dx + 0.04 * dy - 0.004 * dy * dy) *
              std::pow(0.98, std::abs(r[2] - 2) + std::abs(r[3] - 2));
  if (dx > 0) t.slowed = std::pow(0.97, dx);
  return t;
}

Context two_ways_space(std::uint64_t seed) {
  Context ctx;
  ctx.state = "unclassified";
  ctx.seed = seed;
  for (int i = 0; i < 9 * 9 * 5 * 5; ++i) {
    const std::vector<int> r = {i % 9, i / 9 % 9, i / 81 % 5, i / 405};
    if (r == std::vector<int>{4, 4, 2, 2}) continue;
    Action a;
    const char* names[] = {"X", "Y", "Z", "W"};
    for (int d = 0; d < 4; ++d) a.settings[names[d]] = std::to_string(r[d] + 1);
    for (const auto& [k, v] : a.settings) a.id += (a.id.empty() ? "" : ",") + k + "=" + v;
    a.technique = "block_size_adaptation";
    ctx.actions.push_back(a);
  }
  ctx.original = {{"X", "5"}, {"Y", "5"}, {"Z", "3"}, {"W", "3"}};
  return ctx;
}

// Seeds whose first 30 picks include a point kept at 1.08x or more;
// `tell_slowed`: the history says which tries slowed a kernel.
int found_keepable_gain(bool tell_slowed) {
  const Landscape l{two_ways_space, {"X", "Y", "Z", "W"}, true,
                    [tell_slowed](const std::vector<int>& r, HistoryEntry& h) {
                      const TwoWays t = two_ways(r);
                      h.speedup = t.speedup;
                      if (tell_slowed) h.slowed_kernel_speedup = t.slowed;
                      return t.slowed == 0 && t.speedup >= 1.08;
                    }};
  return seeds_reaching(l, 30);
}

// 10 of 10 seeds told, 4 of 10 not (2026-11-28).
TEST(GuidedSearch, ATryThatSlowsAKernelDoesNotLeadTheSearch) {
  const int told = found_keepable_gain(true), untold = found_keepable_gain(false);
  EXPECT_GE(told, 8) << "seeds that found a kept 1.08x in 30 picks, told which tries slowed a kernel";
  EXPECT_GT(told, untold) << "and without being told: " << untold;
}

// A move that lost each of the three times the run made it (fast math on,
// 20% slower from A = 0, 1 and 2) is not the model's first pick from the
// best (A = 3, fast math off), where the nearest measured point, the best
// itself one small step away, would rank it first.
std::vector<std::string> first_picks_after_losses(double losing_weight) {
  GuidedSearchOptions options;
  options.losing_weight = losing_weight;
  options.explore = 0;
  GuidedSearch search(options);
  Context ctx;
  ctx.state = "unclassified";
  ctx.seed = 1;
  auto point = [](int a, int b, bool fm) {
    Action x;
    x.settings = {{"A", std::to_string(a)}, {"B", std::to_string(b)}};
    x.id = "A=" + std::to_string(a) + ",B=" + std::to_string(b);
    if (fm) x.settings["flags"] = "-use_fast_math", x.id += ",-use_fast_math";
    return x;
  };
  for (int a = 0; a <= 3; ++a)
    for (int b = 0; b <= 2; ++b)
      for (bool fm : {false, true}) ctx.actions.push_back(point(a, b, fm));
  ctx.original = {{"A", "0"}, {"B", "0"}};
  const std::vector<std::vector<int>> measured = {{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {0, 0, 1}, {1, 0, 1}, {2, 0, 1},
                                                  {0, 1, 0}, {1, 1, 0}, {0, 2, 0}, {1, 2, 0}, {2, 2, 0}};
  for (const auto& m : measured) {
    const Action x = point(m[0], m[1], m[2] != 0);
    HistoryEntry h;
    h.action_id = x.id, h.settings = x.settings, h.status = Status::ok;
    h.speedup = std::exp(0.05 * m[0] - 0.1 * m[1] - 0.2 * m[2]);
    ctx.history.push_back(h);
    ctx.actions.erase(std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == x.id; }));
  }
  ctx.actions.erase(std::find_if(ctx.actions.begin(), ctx.actions.end(), [](const Action& a) { return a.id == "A=0,B=0"; }));
  return search.next(ctx);
}

TEST(GuidedSearch, AMoveThatLostEachTimeItWasMadeIsNotMadeAgainFromTheBest) {
  const std::vector<std::string> free = first_picks_after_losses(0.0), charged = first_picks_after_losses(1.5);
  ASSERT_FALSE(free.empty());
  ASSERT_FALSE(charged.empty());
  EXPECT_EQ(free.front(), "A=3,B=0,-use_fast_math") << "the check's premise: uncharged, the model makes the move again";
  EXPECT_NE(charged.front(), "A=3,B=0,-use_fast_math");
}

}  // namespace
}  // namespace kernelblaster::policy
