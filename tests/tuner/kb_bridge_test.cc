#include "tuner/kb_bridge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "fakes.h"
#include "kb/kb_store.h"
#include "tuner/directives.h"
#include "tuner/search_loop.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;
using kernelblaster::Status;
using namespace kernelblaster::tuner::testing;

namespace {

SpaceDecl decl() {
  return parse_directives(
      "// kernelblaster: tunable BLOCK_SIZE 64 128 256 512\n#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 256\n#endif\n"
      "// kernelblaster: flags fast_math\n",
      "k.cu", "sm_90");
}

RunLog log_with(const std::vector<EvaluationRecord>& evals) {
  RunLog log;
  log.kernel = "k.cu";
  log.state = "memory_bandwidth_bound";
  log.arch = "sm_90";
  log.tunables = decl().tunables;
  log.evaluations = evals;
  return log;
}

EvaluationRecord rec(const std::string& id, std::map<std::string, std::string> settings,
                     std::vector<std::string> flags, Status status, double speedup) {
  EvaluationRecord r;
  r.id = id;
  r.settings = std::move(settings);
  r.flags = std::move(flags);
  r.status = status;
  r.speedup = speedup;
  return r;
}

}  // namespace

TEST(KbLearning, OneOutcomePerNonDefaultSettingWithTheRightKeys) {
  RunLog log = log_with({rec("BLOCK_SIZE=128,-use_fast_math", {{"BLOCK_SIZE", "128"}}, {"-use_fast_math"}, Status::ok, 1.4),
                         rec("BLOCK_SIZE=64", {{"BLOCK_SIZE", "64"}}, {}, Status::launch_failed, 0),
                         rec("BLOCK_SIZE=512", {{"BLOCK_SIZE", "512"}}, {}, Status::reference_failed, 0)});
  std::vector<kb::Outcome> out = outcomes_of(log);
  ASSERT_EQ(out.size(), 3u);  // the reference failure says nothing about BLOCK_SIZE=512
  EXPECT_EQ(out[0].state, "memory_bandwidth_bound");
  EXPECT_EQ(out[0].technique, "block_size_adaptation");
  EXPECT_EQ(out[0].arch, "sm_90");
  EXPECT_EQ(out[0].setting, "BLOCK_SIZE=128");
  EXPECT_TRUE(out[0].verified);
  // Only ever measured together: the two settings share the 1.4x.
  EXPECT_NEAR(out[0].speedup, std::sqrt(1.4), 5e-3);
  EXPECT_NEAR(out[1].speedup, std::sqrt(1.4), 5e-3);
  EXPECT_EQ(out[1].technique, "fast_math");
  EXPECT_EQ(out[1].setting, "-use_fast_math");
  EXPECT_EQ(out[2].setting, "BLOCK_SIZE=64");
  EXPECT_FALSE(out[2].verified);
  EXPECT_EQ(out[2].speedup, 0.0);
}

TEST(KbLearning, RecordedOutcomesLandInTheKbFile) {
  std::string path = (std::filesystem::temp_directory_path() / "kb_search_learning_test.json").string();
  std::filesystem::remove(path);
  RunLog log = log_with({rec("BLOCK_SIZE=128", {{"BLOCK_SIZE", "128"}}, {}, Status::ok, 1.3),
                         rec("BLOCK_SIZE=128,-use_fast_math", {{"BLOCK_SIZE", "128"}}, {"-use_fast_math"}, Status::ok, 1.5)});
  kb::record_outcomes(path, outcomes_of(log));
  kb::KnowledgeBase k = kb::load_kb(path);
  auto it = k.stats.find(kb::StatsKey{"memory_bandwidth_bound", "block_size_adaptation", "sm_90", "BLOCK_SIZE=128"});
  ASSERT_NE(it, k.stats.end());
  EXPECT_EQ(it->second.tries, 2);
  // BLOCK_SIZE=128's own effect (1.3x alone; fast math added the rest), not
  // the mean of the whole configurations' speedups (1.4x).
  EXPECT_NEAR(it->second.mean, 1.3, 5e-3);
  EXPECT_EQ(k.stats.count(kb::StatsKey{"memory_bandwidth_bound", "fast_math", "sm_90", "-use_fast_math"}), 1u);
  std::filesystem::remove(path);
}

TEST(KbWarmStart, EstimatesCombineSettingsAndFallBackAcrossStates) {
  kb::KnowledgeBase k;
  for (int i = 0; i < 4; ++i) {
    kb::record(k, {"memory_bandwidth_bound", "block_size_adaptation", "sm_90", "BLOCK_SIZE=128", "", true, 1.4, ""});
    kb::record(k, {"latency_bound", "fast_math", "sm_90", "-use_fast_math", "", true, 1.1, ""});
  }
  SpaceDecl d = decl();
  Configuration bs = make_configuration(d.tunables, {{"BLOCK_SIZE", "128"}}, {});
  Configuration both = make_configuration(d.tunables, {{"BLOCK_SIZE", "128"}}, {"-use_fast_math"});
  Configuration unknown = make_configuration(d.tunables, {{"BLOCK_SIZE", "64"}}, {});
  policy::KbEstimate e1 = estimate(k, "memory_bandwidth_bound", "sm_90", bs);
  EXPECT_EQ(e1.tries, 4);
  EXPECT_GT(e1.predicted_speedup, 1.0);
  EXPECT_GT(e1.confidence, 0.0);
  // fast_math is known only in another state: pooled, at half confidence.
  policy::KbEstimate e2 = estimate(k, "memory_bandwidth_bound", "sm_90", both);
  EXPECT_EQ(e2.tries, 8);
  EXPECT_GT(e2.predicted_speedup, 1.0);
  EXPECT_LT(e2.confidence, e1.confidence);
  policy::KbEstimate e3 = estimate(k, "memory_bandwidth_bound", "sm_90", unknown);
  EXPECT_EQ(e3.tries, 0);
  EXPECT_DOUBLE_EQ(e3.predicted_speedup, 1.0);
  EXPECT_DOUBLE_EQ(e3.confidence, 0.0);
  // Another architecture knows nothing.
  EXPECT_EQ(estimate(k, "memory_bandwidth_bound", "sm_80", bs).tries, 0);
}

// With no measurement of a setting, the KB still says which techniques help
// the kernel's state (the seed's helps_states): that is what a cold start
// goes on. A measured setting counts by its measurements only.
TEST(KbWarmStart, UnmeasuredSettingsOfTheStatesTechniquesAreCounted) {
  kb::KnowledgeBase k;
  k.techniques.push_back({"block_size_adaptation", "Block size", "launch", "", "", {"too_little_parallelism"}});
  k.techniques.push_back({"fast_math", "Fast math", "compute", "", "", {"compute_bound", "memory_bandwidth_bound"}});
  SpaceDecl d = decl();
  Configuration bs = make_configuration(d.tunables, {{"BLOCK_SIZE", "128"}}, {});
  Configuration fm = make_configuration(d.tunables, {}, {"-use_fast_math"});
  Configuration both = make_configuration(d.tunables, {{"BLOCK_SIZE", "128"}}, {"-use_fast_math"});
  EXPECT_EQ(estimate(k, "memory_bandwidth_bound", "sm_90", bs).helps_state, 0);
  EXPECT_EQ(estimate(k, "memory_bandwidth_bound", "sm_90", fm).helps_state, 1);
  EXPECT_EQ(estimate(k, "memory_bandwidth_bound", "sm_90", both).helps_state, 1);
  EXPECT_EQ(estimate(k, "too_little_parallelism", "sm_90", both).helps_state, 1);
  EXPECT_EQ(estimate(k, "latency_bound", "sm_90", both).helps_state, 0);
  EXPECT_EQ(estimate(k, "", "sm_90", both).helps_state, 0);  // no state known yet: no technique is the state's
  // Measured here: the measurements speak, not the list.
  kb::record(k, {"memory_bandwidth_bound", "fast_math", "sm_90", "-use_fast_math", "", true, 1.0, ""});
  EXPECT_EQ(estimate(k, "memory_bandwidth_bound", "sm_90", fm).helps_state, 0);
  EXPECT_DOUBLE_EQ(estimate(k, "memory_bandwidth_bound", "sm_90", fm).predicted_speedup, 1.0);
  // The seed KB lists vectorized access for a memory-bound kernel.
  kb::KnowledgeBase seed = kb::load_kb(KERNELBLASTER_SOURCE_DIR "/data/kb/seed.json");
  const kb::Technique* vec = seed.find_technique("vectorized_memory_access");
  ASSERT_NE(vec, nullptr);
  EXPECT_NE(std::find(vec->helps_states.begin(), vec->helps_states.end(), "memory_bandwidth_bound"), vec->helps_states.end());
}

TEST(KbWarmStart, EstimatesReachThePolicyContext) {
  kb::KnowledgeBase k;
  for (int i = 0; i < 3; ++i)
    kb::record(k, {"unclassified", "block_size_adaptation", "sm_90", "BLOCK_SIZE=512", "", true, 1.6, ""});
  SpaceDecl d = decl();
  ConfigSpace space = enumerate_space(d, d.flags);
  std::vector<policy::KbEstimate> estimates;
  for (const Configuration& c : space.configs) estimates.push_back(estimate(k, "unclassified", "sm_90", c));
  FakeMeasurer m;
  InOrderPolicy p;
  FakeClock clock;
  SearchLoop loop(space, estimates, m, p, [&clock] { return clock.now(); });
  LoopOptions opt;
  opt.max_evals = 1;
  opt.facts.arch = "sm_90";
  loop.run(opt);
  ASSERT_FALSE(p.seen.empty());
  bool found = false;
  for (const policy::Action& a : p.seen.front().actions) {
    if (a.id == "BLOCK_SIZE=512") {
      found = true;
      EXPECT_EQ(a.kb.tries, 3);
      EXPECT_GT(a.kb.predicted_speedup, 1.0);
    } else if (a.id == "BLOCK_SIZE=64") {
      EXPECT_EQ(a.kb.tries, 0);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(p.seen.front().arch, "sm_90");
}
