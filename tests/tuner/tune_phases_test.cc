#include "tuner/tune_phases.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fakes.h"
#include "judge/candidate_result.h"
#include "tuner/run_log.h"
#include "tuner/tuner.h"

using namespace kernelblaster::tuner;
using kernelblaster::CandidateResult;
using kernelblaster::EvalResult;
using kernelblaster::Status;
using namespace kernelblaster::tuner::testing;

TEST(PhaseClock, ConsecutivePhasesAddUpToTheElapsedTime) {
  FakeClock clock;
  clock.millis = 5000;  // any origin
  PhaseClock phases([&] { return clock.now(); }, "setup");
  clock.millis += 300;
  phases.next("reference_build");
  clock.millis += 2500;
  phases.next("profile");
  clock.millis += 2000;
  phases.next("loop");
  clock.millis += 40000;
  std::map<std::string, double> s = phases.seconds();  // the current phase up to now
  EXPECT_DOUBLE_EQ(s["setup"], 0.3);
  EXPECT_DOUBLE_EQ(s["reference_build"], 2.5);
  EXPECT_DOUBLE_EQ(s["profile"], 2.0);
  EXPECT_DOUBLE_EQ(s["loop"], 40.0);
  EXPECT_EQ(s.size(), 4u);
  double sum = 0;
  for (const auto& [name, secs] : s) sum += secs;
  EXPECT_DOUBLE_EQ(sum, phases.elapsed());
}

// The total and the phases come from one reading of the clock: with a clock
// that moves on every reading (a loaded machine), they still add up exactly.
TEST(PhaseClock, OneReadingGivesPhasesThatAddUpToTheTotal) {
  FakeClock clock;
  PhaseClock phases(
      [&] {
        clock.millis += 1;  // each reading 1 ms after the last
        return clock.now();
      },
      "setup");
  clock.millis += 300;
  phases.next("loop");
  clock.millis += 2000;
  PhaseClock::Reading r = phases.read();
  double sum = 0;
  for (const auto& [name, secs] : r.phases) sum += secs;
  EXPECT_DOUBLE_EQ(sum, r.total);
  EXPECT_NEAR(r.total, 2.302, 1e-9);  // 300 + 2000 ms, and the 2 readings after the first
}

TEST(PhaseClock, APhaseEnteredTwiceAddsUp) {
  FakeClock clock;
  PhaseClock phases([&] { return clock.now(); }, "a");
  clock.millis += 1000;
  phases.next("b");
  clock.millis += 500;
  phases.next("a");
  clock.millis += 250;
  EXPECT_DOUBLE_EQ(phases.seconds()["a"], 1.25);
  EXPECT_DOUBLE_EQ(phases.seconds()["b"], 0.5);
}

TEST(PhaseClock, PhasesTravelInTheRunLogAndOlderLogsHaveNone) {
  RunLog log;
  log.kernel = "k.cu";
  log.phases_s = {{"setup", 0.4}, {"loop", 45.5}, {"reverify", 2.6}};
  RunLog back = run_log_from_json(run_log_to_json(log), "x.json");
  EXPECT_EQ(back.phases_s, log.phases_s);
  RunLog old = run_log_from_json(R"({"version": 1, "evaluations": []})", "old.json");
  EXPECT_TRUE(old.phases_s.empty());
  EXPECT_EQ(nlohmann::json::parse(run_log_to_json(old)).count("phases_s"), 0u);
}

TEST(PhaseClock, EachEvaluationsPhasesTravelInTheRunLog) {
  RunLog log;
  EvaluationRecord timed, unbuilt;
  timed.id = "BLOCK_SIZE=128";
  timed.phases_s = {{"main candidate correctness", 0.8}, {"main candidate timing", 0.6}};
  timed.build_wait_s = 3.1;  // the device idle while the loop waited for its build
  unbuilt.id = "BLOCK_SIZE=64";
  unbuilt.status = Status::compile_failed;
  log.evaluations = {timed, unbuilt};
  const nlohmann::json j = nlohmann::json::parse(run_log_to_json(log));
  EXPECT_DOUBLE_EQ(j.at("evaluations").at(0).at("phases_s").at("main candidate timing").get<double>(), 0.6);
  EXPECT_EQ(j.at("evaluations").at(1).count("phases_s"), 0u);
  RunLog back = run_log_from_json(j.dump(), "x.json");
  EXPECT_EQ(back.evaluations.at(0).phases_s, timed.phases_s);
  EXPECT_DOUBLE_EQ(back.evaluations.at(0).build_wait_s, 3.1);
  EXPECT_TRUE(back.evaluations.at(1).phases_s.empty());
}

TEST(TuneSummary, SaysWhereTheTimeWentAndWhatEachGpuReverified) {
  TuneSummary s;
  s.status = TuneVerdict::tuned;
  s.exit_code = 0;
  s.phases_s = {{"loop", 45.5}, {"reverify", 2.6}};
  s.first_measurement_s = 2.9;
  s.builds = 39;
  s.speculative_builds = 15;
  s.speculative_builds_used = 15;
  s.search_stop = "build past deadline";
  const auto check = [](int device, double speedup) {
    DeviceCheck c;
    c.device = device;
    c.seeds = 3;
    c.result.speedup = speedup;
    return c;
  };
  s.reverification = {check(0, 1.06), check(1, 1.05)};
  s.look_phases_s["guard"] = {{"main candidate correctness", 4.5}};
  nlohmann::json j = nlohmann::json::parse(tune_summary_to_json(s));
  EXPECT_DOUBLE_EQ(j.at("look_phases_s").at("guard").at("main candidate correctness").get<double>(), 4.5);
  EXPECT_DOUBLE_EQ(j.at("phases_s").at("reverify").get<double>(), 2.6);
  EXPECT_DOUBLE_EQ(j.at("first_measurement_s").get<double>(), 2.9);
  EXPECT_EQ(j.at("speculative_builds").get<int>(), 15);
  EXPECT_EQ(j.at("speculative_builds_used").get<int>(), 15);
  EXPECT_EQ(j.at("builds").get<int>(), 39);
  EXPECT_EQ(j.at("search_stop").get<std::string>(), "build past deadline");
  ASSERT_EQ(j.at("reverification").size(), 2u);
  EXPECT_EQ(j["reverification"][1].at("device").get<int>(), 1);
  EXPECT_EQ(j["reverification"][1].at("seeds").get<int>(), 3);
  EXPECT_DOUBLE_EQ(j["reverification"][1].at("speedup").get<double>(), 1.05);
  EXPECT_FALSE(j["reverification"][1].contains("back_to_back_speedup"));  // no warm round: nothing to say
}

// A look's speedup says what it is made of: each timing round's (the lower
// is the one kept) and the kept round's speedup at each size.
TEST(TuneSummary, ALooksSpeedupSaysItsRoundsAndSizes) {
  EvalResult r;
  r.status = Status::ok;
  r.speedup = 1.18;
  r.flushed_speedup = 1.29;
  r.back_to_back_speedup = 1.18;
  kernelblaster::SizeTiming small, odd;
  small.size = "small";
  small.speedup = 1.02;
  odd.size = "odd";
  odd.speedup = 1.08;
  odd.validation_only = true;
  r.timing = {small, odd};
  TuneSummary s;
  s.reverification = {{0, 6, candidate_result_of(r)}};
  nlohmann::json j = nlohmann::json::parse(tune_summary_to_json(s)).at("reverification").at(0);
  EXPECT_DOUBLE_EQ(j.at("flushed_speedup").get<double>(), 1.29);
  EXPECT_DOUBLE_EQ(j.at("back_to_back_speedup").get<double>(), 1.18);
  ASSERT_EQ(j.at("sizes").size(), 2u);
  EXPECT_EQ(j["sizes"][0].at("size").get<std::string>(), "small");
  EXPECT_DOUBLE_EQ(j["sizes"][0].at("speedup").get<double>(), 1.02);
  EXPECT_TRUE(j["sizes"][1].at("validation_only").get<bool>());
}

// A look's result carries where its evaluation spent the seconds, the
// same phase of several processes or rounds summed.
TEST(TuneSummary, ALooksPhasesAreSummedByName) {
  EvalResult r;
  r.status = Status::ok;
  r.phase_seconds = {{"main reference process", 2.0}, {"back-to-back reference process", 1.0}};
  r.process_phase_seconds = {{"main candidate correctness", 3.0}, {"main candidate correctness", 0.5}};
  const CandidateResult c = candidate_result_of(r);
  EXPECT_DOUBLE_EQ(c.phases_s.at("main reference process"), 2.0);
  EXPECT_DOUBLE_EQ(c.phases_s.at("main candidate correctness"), 3.5);
  EXPECT_EQ(c.phases_s.size(), 3u);
}

// --budget is the run's wall time: the search gets what the phases before
// it left (the loop keeps the checks' time itself), never less than a tenth.
TEST(TunePhases, TheSearchGetsWhatTheRunHasLeft) {
  PhaseClock::Reading r;
  r.total = 12;
  r.phases = {{"setup", 4}, {"reference_build", 6}, {"profile", 2}};
  EXPECT_DOUBLE_EQ(search_budget(60, r), 60 - 12);
  r.phases["profile"] = 52, r.total = 58;  // a very slow start: a tenth is left to search
  EXPECT_DOUBLE_EQ(search_budget(60, r), 6);
  r.total = 10, r.phases = {{"setup", 10}};
  EXPECT_DOUBLE_EQ(search_budget(60, r), 50);
  EXPECT_DOUBLE_EQ(search_budget(0, r), 0);  // no deadline stays none
}

TEST(TunePhases, TheFirstMeasurementIsExpectedToCostWhatTheOriginalDid) {
  PhaseClock::Reading r;
  r.phases = {{"setup", 4}, {"reference_build", 30}, {"profile", 12}};
  EXPECT_DOUBLE_EQ(first_measurement_estimate(r), 42);
  EXPECT_DOUBLE_EQ(first_measurement_estimate(PhaseClock::Reading{}), 0);
}
