// The timed runs' inputs and checks: what the plan carries (protocol.h),
// how an evaluation picks them (plan_builder.h), and where in the sample the
// checks land (timed_runs.h's check_indices). GPU-free.
#include <gtest/gtest.h>

#include <set>

#include "common/protocol.h"
#include "judge/plan_builder.h"
#include "runtime/timed_runs.h"

namespace kernelblaster {
namespace {

TEST(TimedInputs, ThePlanCarriesTheChecksAndIsolation) {
  Plan p;
  p.isolate = true;
  p.timing.checks = {{0.25, 7}, {1.0, 9}};
  Plan q = plan_from_json(plan_to_json(p));
  EXPECT_TRUE(q.isolate);
  ASSERT_EQ(q.timing.checks.size(), 2u);
  EXPECT_DOUBLE_EQ(q.timing.checks[0].at, 0.25);
  EXPECT_EQ(q.timing.checks[1].seed, 9u);
  EXPECT_FALSE(plan_from_json(R"({"runs": []})").isolate);  // an original's process is never isolated by default
}

TEST(TimedInputs, AReportCarriesTimedCallsTheDriversToleranceAndTheL2Left) {
  HarnessReport r;
  RunReport run;
  run.timed_call = 41;
  OutputDump oracle;
  oracle.allclose_rtol = 0.1;
  oracle.allclose_atol = 0.01;
  oracle.allclose_equal_nan = true;
  run.oracle = {oracle};
  r.runs = {run};
  r.persisting_l2_bytes = 1234;
  r.isolated_bytes = 99;
  HarnessReport back = report_from_json(report_to_json(r));
  EXPECT_EQ(back.runs[0].timed_call, 41);
  EXPECT_DOUBLE_EQ(back.runs[0].oracle[0].allclose_rtol, 0.1);
  EXPECT_DOUBLE_EQ(back.runs[0].oracle[0].allclose_atol, 0.01);
  EXPECT_TRUE(back.runs[0].oracle[0].allclose_equal_nan);
  EXPECT_EQ(back.persisting_l2_bytes, 1234u);
  EXPECT_EQ(back.isolated_bytes, 99u);
  EXPECT_EQ(report_from_json("{}").runs.size(), 0u);
  RunReport plain = report_from_json(R"({"runs": [{"index": 0}]})").runs[0];
  EXPECT_EQ(plain.timed_call, -1);  // a correctness run unless it says otherwise
  EXPECT_LT(plain.oracle.empty() ? -1.0 : plain.oracle[0].allclose_rtol, 0);
}

// An early check, a late one and the last; every evaluation its own seeds,
// so no timed input of one evaluation is another's.
TEST(TimedInputs, EveryEvaluationGetsItsOwnTimedInputs) {
  TimingRequest a, b;
  choose_timed_inputs(a, 0);
  choose_timed_inputs(b, 0);
  ASSERT_EQ(a.checks.size(), 3u);
  EXPECT_NE(a.seed, b.seed);
  EXPECT_NE(a.checks[0].seed, b.checks[0].seed);
  EXPECT_GT(a.checks[0].at, 0.0);
  EXPECT_LT(a.checks[0].at, a.checks[1].at);
  EXPECT_LT(a.checks[1].at, 1.0);
  EXPECT_DOUBLE_EQ(a.checks[2].at, 1.0);
  std::set<std::uint64_t> seeds{a.seed};
  for (const TimedCheck& c : a.checks) seeds.insert(c.seed);
  EXPECT_EQ(seeds.size(), 4u);
}

TEST(TimedInputs, ASeedBaseMakesThemReproducibleAndApartFromTheCorrectnessRuns) {
  TimingRequest a, b;
  choose_timed_inputs(a, 42);
  choose_timed_inputs(b, 42);
  EXPECT_EQ(a.seed, b.seed);
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (std::size_t k = 0; k < a.checks.size(); ++k) {
    EXPECT_EQ(a.checks[k].seed, b.checks[k].seed);
    EXPECT_DOUBLE_EQ(a.checks[k].at, b.checks[k].at);
  }
  std::vector<std::uint64_t> runs = make_seeds(40, 42);
  for (std::uint64_t s : runs) {
    EXPECT_FALSE(s >= a.seed && s < a.seed + 0x6000) << s;  // the timed and warm-up seeds
    for (const TimedCheck& c : a.checks) EXPECT_NE(s, c.seed);
  }
}

// A search's screen checks one timed call a size, the late one of the full set.
TEST(TimedInputs, AScreenChecksTheLateTimedCallAlone) {
  TimingRequest full, screen;
  choose_timed_inputs(full, 42);
  choose_timed_inputs(screen, 42, true);
  ASSERT_EQ(screen.checks.size(), 1u);
  EXPECT_EQ(screen.seed, full.seed);
  EXPECT_EQ(screen.checks[0].seed, full.checks[1].seed);
  EXPECT_DOUBLE_EQ(screen.checks[0].at, full.checks[1].at);
  EXPECT_LT(screen.checks[0].at, 1.0);
}

TEST(TimedInputs, ChecksLandOnRunsOfTheirOwnInOrder) {
  std::vector<TimedCheck> checks = {{0.3, 1}, {0.65, 2}, {1.0, 3}};
  EXPECT_EQ(check_indices(checks, 100), (std::vector<int>{30, 65, 99}));
  EXPECT_EQ(check_indices(checks, 10), (std::vector<int>{3, 6, 9}));
  // A sample barely larger than the checks: still one run each, the last last.
  EXPECT_EQ(check_indices(checks, 3), (std::vector<int>{0, 1, 2}));
  std::vector<TimedCheck> crowded = {{0.9, 1}, {0.95, 2}, {1.0, 3}};
  EXPECT_EQ(check_indices(crowded, 10), (std::vector<int>{7, 8, 9}));
  std::vector<TimedCheck> early = {{0.0, 1}, {0.01, 2}, {1.0, 3}};
  EXPECT_EQ(check_indices(early, 50), (std::vector<int>{0, 1, 49}));
}

}  // namespace
}  // namespace kernelblaster

namespace kernelblaster {
namespace {

// The loop's order, run by a clock that advances 1 ms a run: 30 warm-up
// runs (3 runs and 30 ms), a 100 ms budget of 1 ms runs, the repeat probe
// after the second-to-last fresh run, the last fresh run last, and the
// checks on runs 30, 65 and 99 with their own seeds' indices.
TEST(TimedSchedule, WarmsUpSizesTheSampleThenRepeatsBeforeTheLastRun) {
  TimingRequest r;
  r.budget_ms = 100.5;  // 100 runs of 1 ms, whatever the clock's rounding
  r.warmup_ms = 29.5;
  r.checks = {{0.3, 11}, {0.65, 12}, {1.0, 13}};
  TimedSchedule s(r, 3);
  std::vector<TimedStep> steps;
  double t = 0;
  int sized_at = -1;
  while (!s.done()) {
    steps.push_back(s.next());
    t += 1e-3;
    if (s.advance(t)) sized_at = static_cast<int>(steps.size());
    ASSERT_LT(steps.size(), 1000u);
  }
  EXPECT_EQ(sized_at, 30);
  EXPECT_EQ(s.fresh_runs(), 100);
  ASSERT_EQ(steps.size(), 30u + 100 + 3);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(steps[i].phase, TimedPhase::warmup);
  for (int i = 0; i < 99; ++i) {
    const TimedStep& f = steps[30 + i];
    EXPECT_EQ(f.phase, TimedPhase::fresh);
    EXPECT_EQ(f.index, i);
    EXPECT_EQ(f.check, i == 30 ? 0 : i == 65 ? 1 : -1) << i;
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(steps[129 + i].phase, TimedPhase::repeat);
    EXPECT_EQ(steps[129 + i].index, i);
  }
  EXPECT_EQ(steps.back().phase, TimedPhase::fresh);
  EXPECT_EQ(steps.back().index, 99);
  EXPECT_EQ(steps.back().check, 2);
}

TEST(TimedSchedule, SlowRunsStillGetTheMinimumAndEveryCheckARun) {
  TimingRequest r;
  r.budget_ms = 10;
  r.warmup_ms = 0;
  r.min_runs = 2;
  r.checks = {{0.2, 1}, {0.5, 2}, {0.8, 3}, {1.0, 4}};
  TimedSchedule s(r, 0);
  double t = 0;
  int fresh = 0, checks = 0;
  while (!s.done()) {
    if (s.next().phase == TimedPhase::fresh) {
      ++fresh;
      checks += s.next().check >= 0;
    }
    t += 1.0;  // a second a run: the budget buys none
    s.advance(t);
  }
  EXPECT_EQ(fresh, 4);
  EXPECT_EQ(checks, 4);
}

TEST(BackToBack, ThePlanCarriesTheCallsPerRunAndAMissingSizeCallsOnce) {
  Plan p;
  p.timing.calls_per_run = {50, 0, 2};
  Plan q = plan_from_json(plan_to_json(p));
  EXPECT_EQ(calls_per_run(q.timing, 0), 50);
  EXPECT_EQ(calls_per_run(q.timing, 1), 1);  // below 2: once
  EXPECT_EQ(calls_per_run(q.timing, 2), 2);
  EXPECT_EQ(calls_per_run(q.timing, 3), 1);  // not listed
  EXPECT_EQ(calls_per_run(plan_from_json(R"({"runs": []})").timing, 0), 1);
}

TEST(BackToBack, EnoughCallsToFillTheSpanAtTheOriginalsPace) {
  HarnessReport ref;
  ref.sizes = {{"n=1024"}, {"n=64", {}, true}, {"n=4096"}, {"n=big"}};
  TimingReport fast, slow, slowest;
  fast.size = 0;
  fast.median_ns = 4060;  // 4 us a call: 50 calls fill 200 us
  slow.size = 2;
  slow.median_ns = 150e3;
  slowest.size = 3;
  slowest.median_ns = 5e6;
  ref.timings = {fast, slow, slowest};
  const std::vector<int> calls = back_to_back_calls(ref, ref.sizes.size());
  EXPECT_EQ(calls, (std::vector<int>{50, 1, 2, 1}));  // the validation size is untimed: once
  EXPECT_EQ(calls_text(calls, ref), "50 calls a run at n=1024, 2 at n=4096, 1 at n=big");
  fast.median_ns = 100;  // never more than the cap
  ref.timings = {fast};
  EXPECT_EQ(back_to_back_calls(ref, 1), (std::vector<int>{kMaxBackToBackCalls}));
}

TEST(BackToBack, EachCallsKernelsCountAsARunOfTheirOwn) {
  const std::vector<KernelRun> run = {{"a", 1}, {"b", 2}, {"a", 3}, {"b", 4}, {"a", 5}, {"b", 6}};
  std::vector<std::vector<KernelRun>> calls = split_calls(run, 3);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[2][0].ns, 5);
  EXPECT_EQ(calls[2][1].name, "b");
  EXPECT_EQ(split_calls(run, 4).size(), 1u);  // 6 kernels do not split into 4 calls
  const std::vector<KernelRun> unlike = {{"a", 1}, {"b", 2}, {"b", 3}, {"a", 4}};
  EXPECT_EQ(split_calls(unlike, 2).size(), 1u);  // the calls launched different sequences: kept whole
  EXPECT_EQ(split_calls(run, 1).size(), 1u);
}

}  // namespace
}  // namespace kernelblaster
