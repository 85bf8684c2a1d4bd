#include "tuner/replay.h"

#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "policy/default_policy.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;
using kernelblaster::Status;

namespace {

// A hand-made recording (labelled synthetic in the file): 9 configurations,
// best BLOCK_SIZE=128 with fast math at 1.269x, one launch failure, one
// inaccurate, one duplicate.
RunLog synthetic() {
  std::string path = std::string(KERNELBLASTER_TUNER_TEST_DATA) + "/synthetic_recording.json";
  return run_log_from_json(read_file(path), path);
}

std::unique_ptr<policy::Policy> default_policy(bool* fell_back) {
  *fell_back = false;
  return policy::make_default_policy();
}

// The synthetic recording replayed with the default policy on `seeds` seeds.
ReplayReport replayed(int seeds, int max_evals = 0) {
  ReplayOptions opt;
  opt.seeds = seeds;
  opt.max_evals = max_evals;
  return replay(synthetic(), kb::KnowledgeBase{}, default_policy, opt);
}

std::vector<std::string> order(const SeedRun& run) {
  std::vector<std::string> ids;
  for (const EvaluationRecord& r : run.outcome.evaluations) ids.push_back(r.id);
  return ids;
}

}  // namespace

TEST(RunLog, RoundTripsThroughJson) {
  RunLog log = synthetic();
  EXPECT_TRUE(log.synthetic);
  ASSERT_EQ(log.evaluations.size(), 9u);
  RunLog again = run_log_from_json(run_log_to_json(log), "again");
  EXPECT_EQ(again.evaluations.size(), 9u);
  EXPECT_EQ(again.evaluations[3].id, log.evaluations[3].id);
  EXPECT_EQ(again.tunables[0].values, log.tunables[0].values);
  EXPECT_EQ(again.original_sass_hash, "h256");
  EXPECT_THROW(run_log_from_json("{\"version\": 1}", "x.json"), SpaceError);
  EXPECT_THROW(run_log_from_json("[1,2", "x.json"), SpaceError);
}

TEST(Replay, RecordedSpaceAndBest) {
  RunLog log = synthetic();
  ConfigSpace space = recorded_space(log);
  EXPECT_EQ(space.configs.size(), 9u);
  EXPECT_NEAR(recorded_best(log), 1.269, 1e-9);
  ReplayMeasurer m(log);
  Configuration c = space.configs[0];
  EXPECT_EQ(m.measure(c, 0).status, log.evaluations[0].status);
  EXPECT_EQ(m.machine_code(space.original), "h256");
  Configuration missing = c;
  missing.id = "BLOCK_SIZE=2048";
  EXPECT_EQ(m.measure(missing, 0).status, Status::not_recorded);
}

TEST(Replay, DeterministicPerSeed) {
  ReplayReport a = replayed(5);
  ReplayReport b = replayed(5);
  ASSERT_EQ(a.runs.size(), 5u);
  bool some_differ = false;
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(order(a.runs[i]), order(b.runs[i])) << "seed " << a.runs[i].seed;
    EXPECT_EQ(a.runs[i].to_band, b.runs[i].to_band);
    some_differ = some_differ || order(a.runs[i]) != order(a.runs[0]);
  }
  EXPECT_TRUE(some_differ) << "every seed chose the same order";
  EXPECT_DOUBLE_EQ(a.mean_to_band, b.mean_to_band);
}

TEST(Replay, ExhaustiveRunReachesTheRecordedBest) {
  ReplayReport r = replayed(3);
  EXPECT_EQ(r.space_size, 9u);
  EXPECT_EQ(r.reached, 3);
  for (const SeedRun& s : r.runs) {
    EXPECT_EQ(s.evaluations, 9);  // no cap: the whole space, sooner or later
    EXPECT_NEAR(s.best, 1.269, 1e-9);
    EXPECT_GE(s.to_band, 1);
    EXPECT_LE(s.to_band, 9);
    EXPECT_EQ(s.duplicates, 1);
  }
  EXPECT_NEAR(r.mean_fraction_evaluated, 1.0, 1e-9);
  ReplayReport capped = replayed(3, 2);
  for (const SeedRun& s : capped.runs) EXPECT_EQ(s.evaluations, 2);
}

// `policy replay --trace`: each seed's selections in the order made, with
// what each found, so a seed that stalled can be read pick by pick.
TEST(Replay, TheTraceListsEachSeedsSelectionsInOrder) {
  ReplayReport r = replayed(2);
  const nlohmann::json t = nlohmann::json::parse(replay_trace_to_json(r));
  ASSERT_EQ(t["seeds"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const nlohmann::json& picks = t["seeds"][i]["picks"];
    ASSERT_EQ(picks.size(), r.runs[i].outcome.evaluations.size());
    EXPECT_EQ(picks[0][0], r.runs[i].outcome.evaluations[0].id);
    EXPECT_EQ(picks[0][1], status_name(r.runs[i].outcome.evaluations[0].status));
    EXPECT_DOUBLE_EQ(t["seeds"][i]["best"].get<double>(), r.runs[i].best);
  }
}

// At a GPU's pace (one compile thread, 10-s builds, 1-s measurements) the
// loop waits for builds on the virtual clock: the eight built (the
// duplicate takes its twin's result) end no sooner than eight builds one
// after another and a measurement, and each evaluation's time is the
// clock's.
TEST(Replay, APaceMakesTheLoopWaitForBuilds) {
  ReplayOptions opt;
  opt.seeds = 2;
  opt.conditions = {1, 10, 1};
  ReplayReport r = replay(synthetic(), kb::KnowledgeBase{}, default_policy, opt);
  for (const SeedRun& s : r.runs) {
    ASSERT_EQ(s.evaluations, 9);
    EXPECT_NEAR(s.best, 1.269, 1e-9);
    double last = 0;
    for (const EvaluationRecord& e : s.outcome.evaluations) {
      EXPECT_GE(e.at_s, last);
      last = e.at_s;
    }
    EXPECT_GE(last, 8 * 10 + 1 - 1e-9);
  }
  ReplayReport at_once = replayed(1);
  EXPECT_DOUBLE_EQ(at_once.runs[0].outcome.evaluations.back().at_s, 0);
}

// At a pace, each result says the build and measurement the replay played
// (what `tune`'s measurer reports, and the loop's build estimates read),
// and a budget on the virtual clock ends the search: with 10-s builds on
// one thread, the search stops where a pick's build would end past 25 s.
TEST(Replay, APaceReportsItsBuildsAndABudgetEndsTheSearch) {
  ReplayOptions opt;
  opt.seeds = 1;
  opt.conditions = {1, 10, 1};
  ReplayReport r = replay(synthetic(), kb::KnowledgeBase{}, default_policy, opt);
  for (const EvaluationRecord& e : r.runs[0].outcome.evaluations)
    if (e.duplicate_of.empty()) {
      EXPECT_DOUBLE_EQ(e.compile_s, 10);
      EXPECT_DOUBLE_EQ(e.eval_s, 1);
    }
  opt.conditions.budget_s = 25;
  ReplayReport within = replay(synthetic(), kb::KnowledgeBase{}, default_policy, opt);
  const LoopOutcome& o = within.runs[0].outcome;
  EXPECT_EQ(o.stop, SearchStop::build_past_deadline);
  EXPECT_LT(o.evaluations.size(), 9u);
  for (const EvaluationRecord& e : o.evaluations) EXPECT_LE(e.at_s, 11 + 25 + 1e-9);
}

// Noise moves what a seed measures, never what it is judged by: its best is
// the recorded figure of the configuration it measured fastest, and a seed
// draws the same noise each time.
TEST(Replay, NoiseIsDrawnFromTheSeedAndTheBestIsARecordedFigure) {
  const RunLog log = synthetic();
  std::set<double> recorded;
  for (const EvaluationRecord& e : log.evaluations) recorded.insert(e.speedup);
  ReplayOptions opt;
  opt.seeds = 3;
  opt.conditions.noise = 0.2;
  ReplayReport a = replay(log, kb::KnowledgeBase{}, default_policy, opt);
  ReplayReport b = replay(log, kb::KnowledgeBase{}, default_policy, opt);
  bool moved = false;
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_TRUE(recorded.count(a.runs[i].best) || a.runs[i].best == 1.0) << a.runs[i].best;
    ASSERT_EQ(a.runs[i].outcome.evaluations.size(), b.runs[i].outcome.evaluations.size());
    for (std::size_t k = 0; k < a.runs[i].outcome.evaluations.size(); ++k) {
      const EvaluationRecord& e = a.runs[i].outcome.evaluations[k];
      EXPECT_DOUBLE_EQ(e.speedup, b.runs[i].outcome.evaluations[k].speedup);
      moved = moved || (e.status == Status::ok && !recorded.count(e.speedup));
    }
  }
  EXPECT_TRUE(moved) << "no measurement carried noise";
}

// Issue 42: a mean of evaluations to the band is said only of seeds that
// reached it; none reaching it is said as such.
TEST(ReplayReportText, SaysWhenNoSeedOrNotEverySeedReachedTheBand) {
  ReplayReport r;
  r.kernel = "k.cu";
  r.policy = "p";
  r.space_size = 40;
  r.runs.resize(4);
  r.mean_best = 1.1;
  r.reached = 0;
  r.mean_to_band = 40;
  std::string text = replay_report_to_text(r);
  EXPECT_NE(text.find("mean: no seed reached the band (0/4)"), std::string::npos) << text;
  EXPECT_EQ(text.find("evaluations to the band"), std::string::npos) << text;
  r.reached = 3;
  text = replay_report_to_text(r);
  EXPECT_NE(text.find("each of the 1 seeds that never reached it counted as the whole space"), std::string::npos) << text;
  r.reached = 4;
  EXPECT_NE(replay_report_to_text(r).find("4/4 seeds reached it"), std::string::npos);
}
