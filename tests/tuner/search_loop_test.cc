#include "tuner/search_loop.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "fakes.h"
#include "tuner/directives.h"

using namespace kernelblaster::tuner;
using kernelblaster::Status;
using namespace kernelblaster::tuner::testing;

namespace {

LoopOutcome run(const ConfigSpace& space, Measurer& m, kernelblaster::policy::Policy& p, FakeClock& clock,
                LoopOptions opt = {}) {
  SearchLoop loop(space, {}, m, p, [&clock] { return clock.now(); });
  return loop.run(opt);
}

}  // namespace

TEST(SearchLoop, ExhaustsTheSpaceAndKeepsTheFastestVerified) {
  ConfigSpace space = small_space();
  ASSERT_EQ(space.configs.size(), 9u);
  FakeMeasurer m;
  m.results["BLOCK_SIZE=128"] = ok(1.2);
  m.results["BLOCK_SIZE=512"] = failed(Status::wrong_result, "y[3] off");
  m.results["BLOCK_SIZE=512,-use_fast_math"] = failed(Status::inaccurate);
  m.results["BLOCK_SIZE=1024"] = ok(1.5);
  m.results["BLOCK_SIZE=64"] = failed(Status::compile_failed, "k.cu:3: error");
  m.results["BLOCK_SIZE=1024,-use_fast_math"] = ok(1.4);
  InOrderPolicy p;
  FakeClock clock;
  LoopOutcome out = run(space, m, p, clock);
  EXPECT_EQ(out.stop, SearchStop::space_exhausted);
  ASSERT_EQ(out.evaluations.size(), 9u);
  EXPECT_EQ(out.measured, 9);
  ASSERT_GE(out.best, 0);
  EXPECT_EQ(out.evaluations[out.best].id, "BLOCK_SIZE=1024");
  EXPECT_DOUBLE_EQ(out.evaluations[out.best].speedup, 1.5);
  // Failures are results: recorded with their status and no speedup.
  int failures = 0;
  for (const EvaluationRecord& r : out.evaluations)
    if (r.status != Status::ok) {
      ++failures;
      EXPECT_EQ(r.speedup, 0.0);
      EXPECT_FALSE(r.accepted);
    }
  EXPECT_EQ(failures, 3);
  // The history the policy sees grows one entry per result.
  EXPECT_EQ(p.seen.back().history.size(), 8u);
  EXPECT_EQ(p.seen.back().actions.size(), 1u);
  // A tried action has left ctx.actions; its history entry keeps its settings.
  bool saw_block_128 = false;
  for (const auto& h : p.seen.back().history)
    if (h.action_id == "BLOCK_SIZE=128") {
      saw_block_128 = true;
      EXPECT_EQ(h.settings.at("BLOCK_SIZE"), "128");
      EXPECT_FALSE(h.technique.empty());
    }
  EXPECT_TRUE(saw_block_128);
}

// The small space in order, each measurement taking `millis` of a fake
// clock; `set` adjusts the measurer and the options.
static LoopOutcome timed_run_with(long long millis,
                                  const std::function<void(const ConfigSpace&, FakeMeasurer&, LoopOptions&)>& set,
                                  ConfigSpace space = small_space()) {
  FakeMeasurer m;
  FakeClock clock;
  m.clock = &clock;
  m.millis_per_measurement = millis;
  InOrderPolicy p;
  LoopOptions opt;
  set(space, m, opt);
  return run(space, m, p, clock, opt);
}

// ... under `budget_s` with `first_pace_s` as the first's expected time.
static LoopOutcome timed_run(long long millis, double budget_s, double first_pace_s = 0, double finish_paces = 0) {
  return timed_run_with(millis, [&](const ConfigSpace&, FakeMeasurer&, LoopOptions& opt) {
    opt.budget_s = budget_s;
    opt.first_pace_s = first_pace_s;
    opt.finish_paces = finish_paces;
  });
}

TEST(SearchLoop, StopsAtTheBudget) {
  // Measurements start at 0, 10 and 20 s; one at 30 s would end at 40 s,
  // past the budget at the pace so far, so it does not start: the budget
  // bounds the run's end, not its last start.
  LoopOutcome out = timed_run(10'000, 35);
  EXPECT_EQ(out.stop, SearchStop::deadline);
  EXPECT_EQ(out.evaluations.size(), 3u);
  EXPECT_LE(out.seconds, 35);
}

// The re-verification after the loop takes measurements too: two of them
// kept (at most half the budget, 17.5 s), a second measurement from 10 s
// would end at 20 s and leave less than that.
TEST(SearchLoop, KeepsThePacesTheRunNeedsAfterTheLoop) {
  LoopOutcome out = timed_run(10'000, 35, 0, 2);
  EXPECT_EQ(out.stop, SearchStop::deadline);
  EXPECT_EQ(out.evaluations.size(), 1u);
  EXPECT_LE(out.seconds + 17.5, 35);
  // Before a measurement has ended nothing is kept: the first pace (the
  // original's build and run, 14 s) would otherwise starve the loop, as it
  // did convolutionSeparable's 60 s on an H100 (five paces of 14 s).
  EXPECT_EQ(timed_run(10'000, 35, 14, 5).evaluations.size(), 1u);
  EXPECT_EQ(timed_run(10'000, 35, 14, 0).evaluations.size(), 3u);
}

// Screened measurements (a search's: one seed a size) keep the reserve of
// full checks: a measurement of 10 s that ran half a full check's runs
// counts as 20 s there. Measured at 0, 10, ..., 60 s when full (20 s kept),
// at 0, 10, ..., 40 s when screened (40 s kept).
TEST(SearchLoop, KeepsTheReserveAtThePaceOfFullChecks) {
  const auto with_share = [](double share) {
    return timed_run_with(10'000, [&](const ConfigSpace& space, FakeMeasurer& m, LoopOptions& opt) {
      for (const Configuration& c : space.configs) {
        kernelblaster::CandidateResult r = ok(1.0);
        r.screen_share = share;
        m.results[c.id] = r;
      }
      opt.budget_s = 100;
      opt.finish_paces = 2;
    });
  };
  EXPECT_EQ(with_share(1.0).evaluations.size(), 7u);
  EXPECT_EQ(with_share(0.5).evaluations.size(), 5u);
}

// Runs after the loop that time nothing (memcheck, the edges' check) are
// kept at a measurement's own pace, screened or not: two of them after
// screens of 10 s keep 20 s, not the 40 s of two full checks, and the loop
// measures at 0, 10, ..., 60 s.
TEST(SearchLoop, KeepsUntimedRunsAtTheMeasurementsOwnPace) {
  const auto with = [](double finish_paces, double finish_untimed) {
    return timed_run_with(10'000, [&](const ConfigSpace& space, FakeMeasurer& m, LoopOptions& opt) {
      for (const Configuration& c : space.configs) {
        kernelblaster::CandidateResult r = ok(1.0);
        r.screen_share = 0.5;
        m.results[c.id] = r;
      }
      opt.budget_s = 100;
      opt.finish_paces = finish_paces;
      opt.finish_untimed = finish_untimed;
    });
  };
  EXPECT_EQ(with(0, 2).evaluations.size(), 7u);
  EXPECT_EQ(with(2, 0).evaluations.size(), 5u);
  EXPECT_EQ(with(1, 1).evaluations.size(), 6u);  // 20 + 10 kept: measured at 0, ..., 50 s
}

// The reserve is for the look at a winner: with none above the bar yet,
// the loop searches on (at most a measurement past the deadline less the
// pace); once one is in hand, the reserve is kept again.
TEST(SearchLoop, KeepsTheReserveOnlyOnceThereIsAWinnerToLookAt) {
  const auto with_first = [](double first_speedup) {
    return timed_run_with(10'000, [&](const ConfigSpace& space, FakeMeasurer& m, LoopOptions& opt) {
      m.results[space.configs[0].id] = ok(first_speedup);
      opt.budget_s = 35;
      opt.finish_paces = 2;
      opt.reserve_from_speedup = 1.02;
    });
  };
  EXPECT_EQ(with_first(1.0).evaluations.size(), 3u);  // no winner: measured at 0, 10 and 20 s
  EXPECT_EQ(with_first(1.5).evaluations.size(), 1u);  // a winner at once: 17.5 s kept from 10 s on
}

// The pace is a measurement's own time: what its evaluation timed
// (eval_s), less the original's run where it made one. Measurements of 3 s
// of which 1 s is the candidate's keep 2 s for the look, not 6, and the
// loop runs to 17 s.
TEST(SearchLoop, PacesMeasurementsByTheirOwnTime) {
  const auto starts = [](double eval_s, double original_s = 0) {
    return timed_run_with(3'000, [&](const ConfigSpace& space, FakeMeasurer& m, LoopOptions& opt) {
             for (const Configuration& c : space.configs) {
               kernelblaster::CandidateResult r = ok(1.0);
               r.eval_s = eval_s;
               if (original_s > 0) r.phases_s = {{"reference process", original_s - 0.1}, {"calibration", 0.1}};
               m.results[c.id] = r;
             }
             opt.budget_s = 20;
             opt.finish_paces = 2;
           })
        .evaluations.size();
  };
  EXPECT_EQ(starts(0), 4u);  // no eval_s: the wall time, 3 s, is the pace
  EXPECT_EQ(starts(1), 6u);
  EXPECT_EQ(starts(3, 2), 6u);  // 3 s, 2 of them the original's run
  EXPECT_EQ(starts(3, 2.9), 4u);  // phases that leave under a quarter: the whole
}

// Before any measurement has ended, the expected first one (the original's
// build and run) decides: one that cannot end within the budget never starts.
TEST(SearchLoop, StartsNothingThatCannotEndWithinTheBudget) {
  LoopOutcome out = timed_run(40'000, 6, 45);
  EXPECT_EQ(out.stop, SearchStop::deadline);
  EXPECT_TRUE(out.evaluations.empty());
  EXPECT_EQ(timed_run(40'000, 6, 0).evaluations.size(), 1u);  // unknown: the first measurement starts
}

// A candidate whose build has not started, or not ended, cannot be
// measured before it is built: the deadline counts the build still to come
// (at the mean build time so far) unless a build asked for ahead is done.
TEST(SearchLoop, CountsTheBuildStillToComeAgainstTheDeadline) {
  const auto with_builds = [](bool every_build_done) {
    return timed_run_with(2'000, [&](const ConfigSpace& space, FakeMeasurer& m, LoopOptions& opt) {
      build_each_for(m, space, 10);
      if (!every_build_done)
        for (const Configuration& c : space.configs) m.building.insert(c.id);
      opt.budget_s = 15;
      opt.prefetch = 0;  // no build asked ahead: the next one starts when it is picked
    });
  };
  // Measured at 0 and 2 s; at 4 s a build of 10 s and a measurement of 2 s
  // would end past 15 s.
  EXPECT_EQ(with_builds(false).evaluations.size(), 2u);
  // Builds done ahead: measurements start at 0, 2, ..., 12 s.
  EXPECT_EQ(with_builds(true).evaluations.size(), 7u);
}

TEST(SearchLoop, StopsAtTheEvaluationCapAndWhenThePolicySays) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  FakeClock clock;
  InOrderPolicy p;
  LoopOptions opt;
  opt.max_evals = 3;
  LoopOutcome capped = run(space, m, p, clock, opt);
  EXPECT_EQ(capped.stop, SearchStop::evaluation_cap);
  EXPECT_EQ(capped.evaluations.size(), 3u);
  InOrderPolicy stopper;
  stopper.stop_after = 2;
  LoopOutcome stopped = run(space, m, stopper, clock);
  EXPECT_EQ(stopped.stop, SearchStop::policy);
  EXPECT_EQ(stopped.evaluations.size(), 2u);
}

// An original that cannot judge (a race in it, SGEMM_CUDA's kernel 11 on an
// H200: 480 s of candidates judged against it) ends the search after a few
// candidates; one that fails now and then does not, once a candidate verified.
TEST(SearchLoop, StopsWhenTheOriginalCannotJudgeAnyCandidate) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  for (const Configuration& c : space.configs)
    m.results[c.id] = failed(Status::reference_failed, "the original's 'y' differs between two runs on the same inputs");
  FakeClock clock;
  InOrderPolicy p;
  LoopOutcome out = run(space, m, p, clock);
  EXPECT_EQ(out.stop, SearchStop::original_failed);
  EXPECT_EQ(out.evaluations.size(), 3u);
  EXPECT_STREQ(search_stop_name(out.stop), "original failed");

  FakeMeasurer sometimes;
  for (std::size_t i = 1; i < space.configs.size(); ++i)
    sometimes.results[space.configs[i].id] = failed(Status::reference_failed, "a race");
  InOrderPolicy q;
  LoopOutcome on = run(space, sometimes, q, clock);
  EXPECT_EQ(on.stop, SearchStop::space_exhausted) << "the first candidate verified: the original can judge";
}

TEST(SearchLoop, APolicyCanRefuseAResult) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  m.results["BLOCK_SIZE=128"] = ok(1.2);
  m.results["BLOCK_SIZE=128,-use_fast_math"] = ok(1.9);
  FakeClock clock;
  InOrderPolicy p;
  p.refuse = {"BLOCK_SIZE=128,-use_fast_math"};
  LoopOutcome out = run(space, m, p, clock);
  ASSERT_GE(out.best, 0);
  EXPECT_EQ(out.evaluations[out.best].id, "BLOCK_SIZE=128");
}

TEST(SearchLoop, AConfigurationThatSlowsAKernelIsMeasuredNeverKept) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  m.results["BLOCK_SIZE=128"] = ok(1.2);
  kernelblaster::CandidateResult slowing = ok(1.9);
  slowing.slower_kernel = "coarse 0.970x at 1024x1024";
  slowing.slowed_kernel_speedup = 0.97;
  m.results["BLOCK_SIZE=1024"] = slowing;
  FakeClock clock;
  InOrderPolicy p;
  LoopOutcome out = run(space, m, p, clock);
  ASSERT_GE(out.best, 0);
  EXPECT_EQ(out.evaluations[out.best].id, "BLOCK_SIZE=128");
  ASSERT_GE(out.best_slowing, 0);
  EXPECT_EQ(out.evaluations[out.best_slowing].id, "BLOCK_SIZE=1024");
  EXPECT_FALSE(out.evaluations[out.best_slowing].accepted);
  // Slower as a whole too: nothing to say of it beyond its speed.
  kernelblaster::CandidateResult slow = ok(0.7);
  slow.slower_kernel = "coarse 0.700x at 1024x1024";
  m.results["BLOCK_SIZE=1024"] = slow;
  FakeClock clock2;
  InOrderPolicy p2;
  EXPECT_LT(run(space, m, p2, clock2).best_slowing, 0);
  // The policy still learns its speed, and what it could be kept at.
  bool seen = false;
  for (const auto& h : p.seen.back().history)
    if (h.action_id == "BLOCK_SIZE=1024")
      seen = h.speedup == 1.9 && h.slowed_kernel_speedup == 0.97 && h.worth() == 0.97 && !h.accepted;
  EXPECT_TRUE(seen);
}

TEST(SearchLoop, IdenticalMachineCodeIsMeasuredOnce) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  m.results["BLOCK_SIZE=64"] = ok(1.1);
  m.hashes["BLOCK_SIZE=64"] = "aaaa";
  m.hashes["BLOCK_SIZE=64,-use_fast_math"] = "aaaa";  // fast math changed nothing
  m.hashes["default"] = "orig";
  m.hashes["-use_fast_math"] = "orig";                 // the original's code
  FakeClock clock;
  InOrderPolicy p;
  LoopOutcome out = run(space, m, p, clock);
  EXPECT_EQ(out.evaluations.size(), 9u);
  EXPECT_EQ(out.measured, 7);
  EXPECT_EQ(out.duplicates, 2);
  EXPECT_EQ(std::count(m.measured.begin(), m.measured.end(), "BLOCK_SIZE=64,-use_fast_math"), 0);
  EXPECT_EQ(std::count(m.measured.begin(), m.measured.end(), "-use_fast_math"), 0);
  for (const EvaluationRecord& r : out.evaluations) {
    if (r.id == "BLOCK_SIZE=64,-use_fast_math") {
      EXPECT_EQ(r.duplicate_of, "BLOCK_SIZE=64");
      EXPECT_DOUBLE_EQ(r.speedup, 1.1);
    }
    if (r.id == "-use_fast_math") {
      EXPECT_EQ(r.duplicate_of, "default");
      EXPECT_DOUBLE_EQ(r.speedup, 1.0);
      EXPECT_FALSE(r.accepted);
    }
  }
}

TEST(SearchLoop, SpreadsOverDevicesNeverTwoOnOne) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  m.sleep_ms = 20;
  m.hashes["BLOCK_SIZE=1024"] = "same";
  m.hashes["BLOCK_SIZE=1024,-use_fast_math"] = "same";  // may wait for its twin in flight
  m.results["BLOCK_SIZE=1024"] = ok(1.3);
  FakeClock clock;
  InOrderPolicy p;
  LoopOptions opt;
  opt.devices = {0, 1, 2};
  LoopOutcome out = run(space, m, p, clock, opt);
  EXPECT_EQ(out.evaluations.size(), 9u);
  EXPECT_EQ(out.measured, 8);
  EXPECT_FALSE(m.overlap_on_one_device);
  EXPECT_GT(m.max_active_total, 1);
  EXPECT_LE(m.max_active_total, 3);
  EXPECT_EQ(m.per_device.size(), 3u);
  for (const EvaluationRecord& r : out.evaluations)
    if (r.id == "BLOCK_SIZE=1024,-use_fast_math") EXPECT_DOUBLE_EQ(r.speedup, 1.3);
}

TEST(SearchLoop, ActionsCarryTheFullConfiguration) {
  ConfigSpace space = small_space();
  kernelblaster::policy::KbEstimate kb;
  kb.predicted_speedup = 1.3;
  kernelblaster::policy::Action a = action_of(space.configs.back(), kb);
  EXPECT_EQ(a.id, "BLOCK_SIZE=1024,-use_fast_math");
  EXPECT_EQ(a.technique, "block_size_adaptation+fast_math");
  EXPECT_EQ(a.settings.at("BLOCK_SIZE"), "1024");
  EXPECT_EQ(a.settings.at("flags"), "-use_fast_math");
  EXPECT_DOUBLE_EQ(a.kb.predicted_speedup, 1.3);
}

TEST(SearchLoop, EqualMachineCodeWithOtherTunableValuesIsStillMeasured) {
  // A block size used only in the launch (<<<grid, BLOCK_SIZE>>>) leaves the
  // SASS unchanged; the candidates still differ and must each be measured.
  ConfigSpace space = small_space();
  FakeMeasurer m;
  for (const char* id : {"default", "BLOCK_SIZE=64", "BLOCK_SIZE=128", "BLOCK_SIZE=512", "BLOCK_SIZE=1024"})
    m.hashes[id] = "same";
  m.results["BLOCK_SIZE=512"] = ok(1.3);
  FakeClock clock;
  InOrderPolicy p;
  LoopOutcome out = run(space, m, p, clock);
  for (const char* id : {"BLOCK_SIZE=64", "BLOCK_SIZE=128", "BLOCK_SIZE=512", "BLOCK_SIZE=1024"})
    EXPECT_EQ(std::count(m.measured.begin(), m.measured.end(), id), 1) << id;
  EXPECT_EQ(out.duplicates, 0);
  ASSERT_GE(out.best, 0);
  EXPECT_EQ(out.evaluations[out.best].id, "BLOCK_SIZE=512");
}

// While the policy's first pick still compiles, the device measures the
// first of its next picks whose build is done, then the passed-over pick.
TEST(SearchLoop, MeasuresABuiltPickWhileThePolicysFirstStillBuilds) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  m.building = {space.configs[0].id, space.configs[1].id};
  InOrderPolicy p;
  FakeClock clock;
  LoopOptions opt;
  opt.prefetch = 4;
  opt.max_evals = 4;
  LoopOutcome out = run(space, m, p, clock, opt);
  ASSERT_EQ(m.measured.size(), 4u);
  EXPECT_EQ(m.measured[0], space.configs[2].id);  // the first built pick within the prefetch window
  EXPECT_EQ(m.measured[1], space.configs[3].id);
  // The window shrinks to what the cap leaves (one ahead): the passed-over
  // picks, in the policy's order.
  EXPECT_EQ(m.measured[2], space.configs[0].id);
  EXPECT_EQ(m.measured[3], space.configs[1].id);
  // Nothing built ahead: the policy's first pick, waited for.
  FakeMeasurer none;
  for (const Configuration& c : space.configs) none.building.insert(c.id);
  InOrderPolicy q;
  run(space, none, q, clock, opt);
  ASSERT_FALSE(none.measured.empty());
  EXPECT_EQ(none.measured[0], space.configs[0].id);
}

// The small space measured in `millis` each on a fake clock, each build
// taking `compile_s`.
struct TimedBuilds {
  ConfigSpace space = small_space();
  FakeClock clock;
  FakeMeasurer m;
  TimedBuilds(long long millis, double compile_s) {
    m.clock = &clock;
    m.millis_per_measurement = millis;
    build_each_for(m, space, compile_s);
  }
};

// In the policy's order at its first call, then in reverse: a walk whose
// centre moved, whose new picks all start to build at once.
class TurningPolicy final : public kernelblaster::policy::Policy {
 public:
  std::string name() const override { return "turning"; }
  std::vector<std::string> select(const kernelblaster::policy::Context& ctx) override {
    std::vector<std::string> ids;
    for (const auto& a : ctx.actions) ids.push_back(a.id);
    if (calls++ > 0) std::reverse(ids.begin(), ids.end());
    return ids;
  }
  std::optional<bool> accept(const kernelblaster::policy::Context&, const kernelblaster::policy::HistoryEntry&) override {
    return std::nullopt;
  }
  std::optional<bool> stop(const kernelblaster::policy::Context&) override { return std::nullopt; }
  int calls = 0;
};

// The policy's new picks all still build, for longer than a measurement:
// the device measures a configuration an earlier pick list asked for and
// the pool built since, instead of idling. With less than a measurement's
// build left, it waits for the pick.
TEST(SearchLoop, MeasuresAnEarlierAskedBuildWhileTheNewPicksAllBuild) {
  const auto measured_with_builds_of = [](double compile_s) {
    TimedBuilds t(1000, compile_s);
    auto& [space, clock, m] = t;
    const std::size_t last = space.configs.size() - 1;
    m.building = {space.configs[last].id, space.configs[last - 1].id};
    TurningPolicy p;
    LoopOptions opt;
    opt.prefetch = 1;
    opt.max_evals = 3;
    run(space, m, p, clock, opt);
    return m.measured;
  };
  const ConfigSpace space = small_space();
  const std::size_t last = space.configs.size() - 1;
  EXPECT_EQ(measured_with_builds_of(10.0),
            (std::vector<std::string>{space.configs[0].id, space.configs[1].id, space.configs[last].id}));
  EXPECT_EQ(measured_with_builds_of(0.5),
            (std::vector<std::string>{space.configs[0].id, space.configs[last].id, space.configs[last - 1].id}));
}

// The second configuration measured when every build but the last is
// still compiling (10 s against 1-s measurements), told (or not) that the
// last was built before the loop, with the KB's estimate of it.
static std::string second_measured_beside_a_guess(bool told, kernelblaster::policy::KbEstimate of_guess = {}) {
  TimedBuilds t(1000, 10);
  auto& [space, clock, m] = t;
  for (const Configuration& c : space.configs) m.building.insert(c.id);
  const std::string ahead = space.configs.back().id;
  m.building.erase(ahead);
  std::vector<kernelblaster::policy::KbEstimate> estimates(space.configs.size());
  estimates.back() = of_guess;
  InOrderPolicy p;
  LoopOptions opt;
  opt.prefetch = 1;
  opt.max_evals = 2;
  if (told) opt.built_ahead = {ahead};
  SearchLoop loop(space, estimates, m, p, [&clock] { return clock.now(); });
  loop.run(opt);
  return m.measured.at(1);
}

// Builds started before the loop (speculation.h) count as asked: while the
// policy's next pick still builds, for longer than a measurement, the
// device measures one of them instead of waiting.
TEST(SearchLoop, MeasuresABuildStartedBeforeTheLoopWhileThePicksBuild) {
  const ConfigSpace space = small_space();
  EXPECT_EQ(second_measured_beside_a_guess(true), space.configs.back().id);
  EXPECT_EQ(second_measured_beside_a_guess(false), space.configs[1].id);  // waited for
}

// A guessed build the KB expects to lose in the original's state (the
// guesses are asked before that state is known) is not measured in the
// pick's stead: the loop waits for the pick. One it has no opinion of, or
// expects to gain, is.
TEST(SearchLoop, DoesNotFillTheDeviceWithAGuessTheKbExpectsToLose) {
  const auto with_prediction = [](double predicted) {
    kernelblaster::policy::KbEstimate e;
    e.tries = 2;
    e.predicted_speedup = predicted;
    return second_measured_beside_a_guess(true, e);
  };
  const ConfigSpace space = small_space();
  EXPECT_EQ(with_prediction(0.71), space.configs[1].id);  // waited for
  EXPECT_EQ(with_prediction(1.0), space.configs.back().id);
  EXPECT_EQ(with_prediction(1.2), space.configs.back().id);
}

// Near the deadline, a pick whose build (1.5 s, under a measurement's 2 s,
// so the loop would wait for it) cannot end in time gives way to a built
// configuration an earlier pick list asked for: 2 + 1.5 + 2 s would pass
// the 5-s budget, 2 + 2 s does not. With nothing built, the run stops.
TEST(SearchLoop, MeasuresWhatIsBuiltWhenThePicksBuildCannotEndInTime) {
  const auto measured_with = [](bool shelf) {
    TimedBuilds t(2000, 1.5);
    auto& [space, clock, m] = t;
    const std::size_t last = space.configs.size() - 1;
    m.building = {space.configs[last].id, space.configs[last - 1].id};
    if (!shelf) m.building.insert(space.configs[1].id);
    TurningPolicy p;
    LoopOptions opt;
    opt.prefetch = 1;
    opt.budget_s = 5;
    LoopOutcome out = run(space, m, p, clock, opt);
    EXPECT_EQ(out.stop, shelf ? SearchStop::deadline : SearchStop::build_past_deadline);
    return m.measured;
  };
  const ConfigSpace space = small_space();
  EXPECT_EQ(measured_with(true), (std::vector<std::string>{space.configs[0].id, space.configs[1].id}));
  EXPECT_EQ(measured_with(false), (std::vector<std::string>{space.configs[0].id}));
}

// Outside the prefetch window nothing is taken out of the policy's order.
TEST(SearchLoop, KeepsThePolicysOrderBeyondThePrefetchWindow) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  m.building = {space.configs[0].id, space.configs[1].id, space.configs[2].id};
  InOrderPolicy p;
  FakeClock clock;
  LoopOptions opt;
  opt.prefetch = 2;
  opt.max_evals = 1;
  run(space, m, p, clock, opt);
  ASSERT_EQ(m.measured.size(), 1u);
  EXPECT_EQ(m.measured[0], space.configs[0].id);
}

// The source's last winner (LoopOptions::first_picks, TuneOptions::
// start_from) is measured before the policy's picks, and the policy's
// order follows; an id the space does not hold is passed over.
TEST(SearchLoop, MeasuresTheLastWinnerFirst) {
  ConfigSpace space = small_space();
  FakeMeasurer m;
  InOrderPolicy p;
  FakeClock clock;
  LoopOptions opt;
  opt.max_evals = 3;
  opt.first_picks = {"not-in-this-space", space.configs[2].id};
  run(space, m, p, clock, opt);
  EXPECT_EQ(m.measured, (std::vector<std::string>{space.configs[2].id, space.configs[0].id, space.configs[1].id}));
}

// Each result's progress carries the time used and left; the estimate of
// evaluations left is what the pace fits into the budget, at most what the
// space leaves.
TEST(SearchLoop, ProgressSaysTheTimeLeftAndAnEstimateOfEvaluationsLeft) {
  ConfigSpace space = small_space();
  FakeClock clock;
  FakeMeasurer m;
  m.clock = &clock;
  m.millis_per_measurement = 2000;
  InOrderPolicy p;
  LoopOptions opt;
  opt.budget_s = 9;
  std::vector<LoopProgress> seen;
  SearchLoop loop(space, {}, m, p, [&clock] { return clock.now(); });
  loop.run(opt, [&](const LoopProgress& pr) { seen.push_back(pr); });
  ASSERT_GE(seen.size(), 2u);
  EXPECT_NEAR(seen[0].elapsed_s, 2.0, 1e-9);
  EXPECT_NEAR(seen[0].seconds_left, 7.0, 1e-9);
  EXPECT_EQ(evaluations_left_estimate(seen[0]), 3);  // 7 s at 2 s each
  LoopProgress no_budget = seen[0];
  no_budget.seconds_left = -1;
  EXPECT_EQ(evaluations_left_estimate(no_budget), 8);  // 9 in the space, 1 done
  LoopProgress end = seen.back();
  end.done = end.total;
  EXPECT_EQ(evaluations_left_estimate(end), 0);
}

// Issue 38: a source's groups of launch sites are independent searches
// that share a run. One walk over all stayed with the group that gained
// first (SGEMM_CUDA's kernel 6 had 11 of 62 tries beside kernel 5); and a
// group's gain smaller than another's best was not accepted, so the
// composed winner could not take it.
TEST(SearchLoop, SearchesEachGroupAsASpaceOfItsOwnInTurn) {
  ConfigSpace space = two_group_space();
  ASSERT_EQ(space.configs.size(), 5u);
  FakeMeasurer m;
  m.results["A=2"] = ok(1.3);
  m.results["B=2"] = ok(1.1);
  InOrderPolicy p;
  FakeClock clock;
  LoopOutcome out = run(space, m, p, clock);
  // The part with the fewest picks goes next: g1, g2, g1, g2, then g2 alone.
  EXPECT_EQ(m.measured, (std::vector<std::string>{"A=2", "B=2", "A=3", "B=3", "B=4"}));
  // Each context holds one part's actions and history.
  for (const auto& ctx : p.seen) {
    std::set<char> names;
    for (const auto& a : ctx.actions) names.insert(a.id[0]);
    for (const auto& h : ctx.history) names.insert(h.action_id[0]);
    EXPECT_EQ(names.size(), 1u);
  }
  EXPECT_EQ(p.seen[0].evaluations_left, 2);  // an even share of five (3), at most the part's own 2
  EXPECT_EQ(p.seen[1].evaluations_left, 2);  // of the four left
  ASSERT_GE(out.best, 0);
  EXPECT_EQ(out.evaluations[out.best].id, "A=2");
  // B=2 beat its own group's best, not A=2's: accepted, for the composition.
  for (const EvaluationRecord& r : out.evaluations)
    EXPECT_EQ(r.accepted, r.id == "A=2" || r.id == "B=2") << r.id;
}

// Each group with a gain gets a look of its own after the loop: the
// reserve is kept once for each. Measurements of 10 s, a pace kept, a
// budget of 50 s: with one look the third starts at 20 s (20 + 10 + 10 <
// 50); once both groups have gained by 20 s, two are kept and it does not.
TEST(SearchLoop, KeepsTheReserveForEachGroupThatWillBeLookedAt) {
  const auto with_looks_from = [](double look_from) {
    return timed_run_with(
        10'000,
        [&](const ConfigSpace&, FakeMeasurer& m, LoopOptions& opt) {
          m.results["A=2"] = ok(1.3);
          m.results["B=2"] = ok(1.1);
          opt.budget_s = 50;
          opt.finish_paces = 1;
          opt.look_from_speedup = look_from;
        },
        two_group_space());
  };
  EXPECT_EQ(with_looks_from(0).evaluations.size(), 3u);
  EXPECT_EQ(with_looks_from(1.02).evaluations.size(), 2u);
  EXPECT_EQ(with_looks_from(1.2).evaluations.size(), 3u);  // B's 1.1 gets no look: one kept
}

// Where a configuration changes a group's tunables and an ungrouped one,
// the parts share a dimension: one walk over the whole space, as before.
TEST(SearchLoop, SearchesAsOneSpaceWhereGroupsShareATunable) {
  ConfigSpace space = two_group_space(true);
  FakeMeasurer m;
  InOrderPolicy p;
  FakeClock clock;
  run(space, m, p, clock);
  std::vector<std::string> in_order;
  for (const Configuration& c : space.configs) in_order.push_back(c.id);
  EXPECT_EQ(m.measured, in_order);
  EXPECT_EQ(p.seen[0].actions.size(), space.configs.size());
}

// A part the policy stops is closed; the others go on.
TEST(SearchLoop, ThePolicyStopsOnePartAtATime) {
  ConfigSpace space = two_group_space();
  FakeMeasurer m;
  InOrderPolicy p;
  p.stop_after = 1;  // each part's history
  FakeClock clock;
  LoopOutcome out = run(space, m, p, clock);
  EXPECT_EQ(m.measured, (std::vector<std::string>{"A=2", "B=2"}));
  EXPECT_EQ(out.stop, SearchStop::policy);
}

// Issue 72: a search resumed from earlier runs (LoopOptions::earlier)
// measures none of their configurations again; the policy sees them as its
// history, the best among them stands until something beats it, and a new
// configuration with an earlier one's machine code takes its result.
TEST(SearchLoop, ResumesFromEarlierRunsWithoutMeasuringThemAgain) {
  ConfigSpace space = small_space();
  // configs[0]'s flag variant: the same tunable values, so the same machine
  // code is the same candidate.
  std::size_t twin = 0;
  for (std::size_t i = 1; i < space.configs.size(); ++i)
    if (space.configs[i].values == space.configs[0].values) twin = i;
  ASSERT_GT(twin, 0u);
  const std::size_t other = twin == 1 ? 2 : 1;
  FakeMeasurer m;
  m.hashes[space.configs[twin].id] = "sass-a";
  m.results[space.configs[4].id] = ok(1.1);
  InOrderPolicy p;
  FakeClock clock;
  LoopOptions opt;
  EvaluationRecord fast;
  static_cast<kernelblaster::CandidateResult&>(fast) = ok(1.3);
  fast.id = space.configs[0].id;
  fast.n = 1;
  fast.sass_hash = "sass-a";
  EvaluationRecord wrong;
  static_cast<kernelblaster::CandidateResult&>(wrong) = failed(Status::wrong_result, "y[1] off");
  wrong.id = space.configs[other].id;
  wrong.n = 2;
  EvaluationRecord gone = fast;  // of a configuration this space no longer holds: left out
  gone.id = "BLOCK_SIZE=48";
  opt.earlier = {fast, wrong, gone};
  LoopOutcome out = run(space, m, p, clock, opt);
  EXPECT_EQ(out.earlier, 2);
  EXPECT_EQ(out.evaluations.size(), 9u);
  EXPECT_EQ(out.measured, 6);  // 9 less the 2 earlier and the duplicate of one of them
  for (const std::string& id : m.measured) {
    EXPECT_NE(id, space.configs[0].id);
    EXPECT_NE(id, space.configs[other].id);
    EXPECT_NE(id, space.configs[twin].id);
  }
  EXPECT_EQ(out.evaluations[0].id, space.configs[0].id);
  ASSERT_GE(out.best, 0);
  EXPECT_EQ(out.evaluations[out.best].id, space.configs[0].id);  // 1.3 stands over the new 1.1
  ASSERT_FALSE(p.seen.empty());
  EXPECT_EQ(p.seen.front().history.size(), 2u);
  EXPECT_EQ(p.seen.front().best_speedup, 1.3);
  EXPECT_EQ(out.evaluations[2].n, 3);  // numbering goes on
  for (const EvaluationRecord& r : out.evaluations)
    if (r.id == space.configs[twin].id) EXPECT_EQ(r.duplicate_of, space.configs[0].id);
}
