#include "tuner/speculation.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "fakes.h"
#include "tuner/build_cache.h"
#include "tuner/directives.h"

using namespace kernelblaster::tuner;
using kernelblaster::CandidateResult;
using namespace kernelblaster::tuner::testing;
namespace policy = kernelblaster::policy;

namespace {

// A measurer over the real build cache, as EngineMeasurer uses it, with a
// builder that counts instead of compiling.
class CachedMeasurer final : public Measurer {
 public:
  explicit CachedMeasurer(CompilePool& pool)
      : m_cache(pool, "/w", [this](const Configuration& c, const std::string&) {
          std::lock_guard<std::mutex> lock(mutex);
          ++builds[c.id];
          order.push_back(c.id);
          CandidateBuild b;
          b.outcome.ok = true;
          b.hash = "sass-" + c.id;  // every candidate its own code
          return b;
        }) {}
  std::mutex mutex;
  std::map<std::string, int> builds;
  std::vector<std::string> order;  // builds, in the order they ran
  std::vector<std::string> measured;

  void prepare(const Configuration& c) override { m_cache.get(c); }
  std::string machine_code(const Configuration& c) override {
    return c.is_default() ? "sass-default" : m_cache.get(c).get().hash;
  }
  CandidateResult measure(const Configuration& c, int) override {
    m_cache.get(c).get();
    std::lock_guard<std::mutex> lock(mutex);
    measured.push_back(c.id);
    return ok(1.1);
  }
  int requested() const { return m_cache.requested(); }
  void wait_for(const std::vector<std::string>& ids, const ConfigSpace& space) {
    for (const Configuration& c : space.configs)
      if (std::find(ids.begin(), ids.end(), c.id) != ids.end()) m_cache.get(c).wait();
  }

 private:
  BuildCache m_cache;
};

// Always names the same few ids, whatever the context.
class FixedPolicy final : public policy::Policy {
 public:
  std::vector<std::string> ids;
  bool throws = false;
  std::string name() const override { return "fixed"; }
  std::vector<std::string> select(const policy::Context&) override {
    if (throws) throw std::runtime_error("boom");
    return ids;
  }
  std::optional<bool> accept(const policy::Context&, const policy::HistoryEntry&) override { return std::nullopt; }
  std::optional<bool> stop(const policy::Context&) override { return std::nullopt; }
};

std::vector<std::string> ids_of(const ConfigSpace& s, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < to; ++i) out.push_back(s.configs[i].id);
  return out;
}

// Three builds guessed by an in-order policy, done before the search.
std::vector<std::string> three_built_in_order(const ConfigSpace& space, CachedMeasurer& m, const LoopOptions& lo) {
  InOrderPolicy guesser;
  std::vector<std::string> guesses = speculate_builds(m, space, {}, guesser, lo, 3);
  m.wait_for(guesses, space);
  return guesses;
}

// A guess, then the search, over one measurer: `real` is the run's policy.
struct GuessThenSearch : ::testing::Test {
  CompilePool pool{2};
  CachedMeasurer m{pool};
  InOrderPolicy real;
  LoopOptions lo;
};

}  // namespace

TEST(Speculation, OneFewerThanThePool) {
  EXPECT_EQ(speculative_build_count(16), 15);
  EXPECT_EQ(speculative_build_count(2), 1);
  EXPECT_EQ(speculative_build_count(1), 1);
  EXPECT_EQ(speculative_build_count(0), 1);
}

TEST_F(GuessThenSearch, GuessedBuildsAreReusedByTheSearchNeverRepeated) {
  ConfigSpace space = small_space();
  lo.prefetch = 4;
  std::vector<std::string> guesses = three_built_in_order(space, m, lo);
  EXPECT_EQ(guesses, ids_of(space, 0, 3));
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    EXPECT_EQ(m.order.size(), 3u);  // built before the search began
  }
  EXPECT_TRUE(real.seen.empty());   // the run's own policy was not asked
  SearchLoop loop(space, {}, m, real, [] { return 0.0; });
  LoopOutcome out = loop.run(lo);
  EXPECT_EQ(out.measured, 9);
  EXPECT_EQ(m.requested(), 9);
  for (const Configuration& c : space.configs) EXPECT_EQ(m.builds[c.id], 1) << c.id;
  // The search measured the guesses first, as guessed.
  EXPECT_EQ(std::vector<std::string>(m.measured.begin(), m.measured.begin() + 3), guesses);
}

TEST(Speculation, AWrongGuessIsLeftUnusedAndChangesNothing) {
  ConfigSpace space = small_space();
  CompilePool pool(2);
  FixedPolicy guesser;
  guesser.ids = {space.configs[8].id, space.configs[7].id};
  LoopOptions lo;
  lo.max_evals = 2;
  lo.prefetch = 0;

  CachedMeasurer plain(pool);
  InOrderPolicy p1;
  LoopOutcome without = SearchLoop(space, {}, plain, p1, [] { return 0.0; }).run(lo);

  CachedMeasurer guessed(pool);
  InOrderPolicy p2;
  EXPECT_EQ(speculate_builds(guessed, space, {}, guesser, lo, 2), guesser.ids);
  LoopOutcome with = SearchLoop(space, {}, guessed, p2, [] { return 0.0; }).run(lo);

  // The same choices, the same results: guessing only builds.
  ASSERT_EQ(with.evaluations.size(), without.evaluations.size());
  for (std::size_t i = 0; i < with.evaluations.size(); ++i) {
    EXPECT_EQ(with.evaluations[i].id, without.evaluations[i].id);
    EXPECT_EQ(with.evaluations[i].n, without.evaluations[i].n);
  }
  EXPECT_EQ(guessed.measured, ids_of(space, 0, 2));
  EXPECT_EQ(p1.seen.size(), p2.seen.size());
  for (const Configuration& c : space.configs) EXPECT_LE(guessed.builds[c.id], 1) << c.id;
}

TEST(Speculation, CompletesThePolicysPicksInSpaceOrderUpToTheCap) {
  ConfigSpace space = small_space();
  CompilePool pool(1);
  FakeMeasurer m;
  FixedPolicy guesser;
  guesser.ids = {space.configs[5].id, "no-such-id", space.configs[5].id};
  LoopOptions lo;
  std::vector<std::string> expect = {space.configs[5].id, space.configs[0].id, space.configs[1].id};
  EXPECT_EQ(speculate_builds(m, space, {}, guesser, lo, 3), expect);
  lo.max_evals = 2;
  EXPECT_EQ(speculate_builds(m, space, {}, guesser, lo, 3).size(), 2u);
  EXPECT_TRUE(speculate_builds(m, space, {}, guesser, lo, 0).empty());
}

// The last winner the run measures first is the first guess built.
TEST(Speculation, TheLastWinnerIsGuessedFirst) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  FixedPolicy guesser;
  guesser.ids = {space.configs[5].id};
  LoopOptions lo;
  lo.first_picks = {space.configs[3].id};
  EXPECT_EQ(speculate_builds(m, space, {}, guesser, lo, 2),
            (std::vector<std::string>{space.configs[3].id, space.configs[5].id}));
}

TEST(Speculation, APolicyThatThrowsLeavesTheSpaceOrder) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  FixedPolicy guesser;
  guesser.throws = true;
  EXPECT_EQ(speculate_builds(m, space, {}, guesser, LoopOptions{}, 2), ids_of(space, 0, 2));
}

TEST(Speculation, TheGuessSeesTheContextTheSearchShowsFirst) {
  ConfigSpace space = small_space();
  std::vector<policy::KbEstimate> estimates(space.configs.size());
  estimates[4].predicted_speedup = 1.4;
  estimates[4].tries = 7;
  LoopOptions lo;
  lo.facts = {"k.cu", "memory_bandwidth_bound", "sm_90", "H200", {{"dram_throughput_pct", 81.0}}};
  lo.seed = 42;
  lo.max_evals = 5;
  lo.budget_s = 0;  // no deadline: seconds_left does not move with the clock
  FakeMeasurer m;
  InOrderPolicy guesser, real;
  speculate_builds(m, space, estimates, guesser, lo, 2);
  SearchLoop(space, estimates, m, real, [] { return 0.0; }).run(lo);
  ASSERT_EQ(guesser.seen.size(), 1u);
  ASSERT_FALSE(real.seen.empty());
  const policy::Context& g = guesser.seen[0];
  const policy::Context& r = real.seen[0];
  EXPECT_EQ(g.kernel, r.kernel);
  EXPECT_EQ(g.state, r.state);
  EXPECT_EQ(g.arch, r.arch);
  EXPECT_EQ(g.gpu, r.gpu);
  EXPECT_EQ(g.metrics, r.metrics);
  EXPECT_EQ(g.seed, r.seed);
  EXPECT_EQ(g.evaluations_left, r.evaluations_left);
  EXPECT_DOUBLE_EQ(g.seconds_left, r.seconds_left);
  EXPECT_DOUBLE_EQ(g.best_speedup, r.best_speedup);
  EXPECT_TRUE(g.history.empty());
  ASSERT_EQ(g.actions.size(), r.actions.size());
  for (std::size_t i = 0; i < g.actions.size(); ++i) {
    EXPECT_EQ(g.actions[i].id, r.actions[i].id);
    EXPECT_EQ(g.actions[i].settings, r.actions[i].settings);
    EXPECT_DOUBLE_EQ(g.actions[i].kb.predicted_speedup, r.actions[i].kb.predicted_speedup);
    EXPECT_EQ(g.actions[i].kb.tries, r.actions[i].kb.tries);
  }
}

TEST(Speculation, TheSearchPrefetchesNoFurtherThanItsCap) {
  ConfigSpace space = small_space();
  CompilePool pool(2);
  CachedMeasurer m(pool);
  InOrderPolicy p;
  LoopOptions lo;
  lo.max_evals = 3;
  lo.prefetch = 8;
  LoopOutcome out = SearchLoop(space, {}, m, p, [] { return 0.0; }).run(lo);
  EXPECT_EQ(out.measured, 3);
  EXPECT_EQ(m.requested(), 3);  // not 1 + 8: builds past the cap would never be used
}

// The loop picks for each group of launch sites in turn: so do the guesses.
TEST_F(GuessThenSearch, GuessesEachGroupInTurnAsTheLoopPicks) {
  ConfigSpace space = two_group_space();
  lo.prefetch = 0;
  std::vector<std::string> guesses = three_built_in_order(space, m, lo);
  EXPECT_EQ(guesses, (std::vector<std::string>{"A=2", "B=2", "A=3"}));
  // Two parts' shares of a cap of 3 round up to 2 each: never past the cap.
  InOrderPolicy again;
  LoopOptions capped = lo;
  capped.max_evals = 3;
  EXPECT_EQ(speculate_builds(m, space, {}, again, capped, 8).size(), 3u);
  SearchLoop loop(space, {}, m, real, [] { return 0.0; });
  loop.run(lo);
  EXPECT_EQ(std::vector<std::string>(m.measured.begin(), m.measured.begin() + 3), guesses);
}
