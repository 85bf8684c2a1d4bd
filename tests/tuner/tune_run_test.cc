// A whole `kernelblaster tune` run on any machine: a probe that claims two
// GPUs, real nvcc builds, and harness runs that fail without a GPU (on a
// GPU machine they may succeed; the assertions hold either way). It checks
// the run's own bookkeeping: where the time went, and that guessed builds
// are the ones the search used, each candidate compiled once.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/file_util.h"
#include "tuner/tuner.h"

using namespace kernelblaster;
namespace fs = std::filesystem;

namespace {

class TwoClaimedGpus final : public GpuProbe {
 public:
  GpuInfo probe(int device) override {
    if (device > 1) return {false, "no such device (test)", "", ""};
    return {true, "", "Claimed GPU (test)", "sm_90"};
  }
};

// vector_add with its harness, two evaluations, no flags, in-order picks
// (the default policy's random order would make the loop's own prefetch
// miss, which is not what these tests are about), a KB of its own in `dir`.
tuner::TuneOptions vector_add_run(const fs::path& dir) {
  tuner::TuneOptions opt;
  opt.source = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src/vector_add.cu";
  opt.harness = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/harness/vector_add_harness.cu";
  opt.include_dirs = {std::string(KERNELBLASTER_EXAMPLES_DIR) + "/include"};
  opt.no_flags = true;
  opt.max_evals = 2;
  opt.quiet = true;
  opt.policy = std::string(KERNELBLASTER_POLICIES_DIR) + "/exhaustive.lua";
  opt.kb = (dir / "kb.json").string();
  return opt;
}

}  // namespace

TEST(TuneRun, ReportsItsPhasesAndCompilesEachCandidateOnce) {
  fs::path dir = fs::temp_directory_path() / ("kb_tune_run_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  tuner::TuneOptions opt = vector_add_run(dir);
  opt.log = (dir / "log.json").string();
  TwoClaimedGpus probe;
  tuner::TuneSummary s = tuner::run_tune(opt, "/nonexistent/kernelblaster", probe, nullptr);
  ASSERT_NE(s.status, tuner::TuneVerdict::no_gpu);
  ASSERT_EQ(s.evaluations, 2) << s.reason;

  for (const char* phase : {"setup", "reference_build", "profile", "loop", "finish"})
    EXPECT_EQ(s.phases_s.count(phase), 1u) << phase;
  double sum = 0;
  for (const auto& [name, secs] : s.phases_s) {
    EXPECT_GE(secs, 0) << name;
    sum += secs;
  }
  EXPECT_NEAR(sum, s.seconds, 1e-6);
  EXPECT_GT(s.phases_s["reference_build"], 0.1);  // a real nvcc ran

  // Guessed while the reference built, then taken by the search: two
  // evaluations, two builds in all, none repeated and none wasted.
  EXPECT_GE(s.speculative_builds, 1);
  EXPECT_LE(s.speculative_builds, 2);  // never past the evaluation cap
  EXPECT_EQ(s.speculative_builds_used, s.speculative_builds);
  EXPECT_EQ(s.builds, 2);

  nlohmann::json log = nlohmann::json::parse(read_file(opt.log));
  ASSERT_TRUE(log.contains("phases_s"));
  auto logged = log["phases_s"].get<std::map<std::string, double>>();
  EXPECT_EQ(logged, s.phases_s);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Issue 72: a run with a state directory keeps what it measured and the
// original's build; the next run takes both, measures only what is new,
// and builds no original again. --fresh-search starts the search afresh.
TEST(TuneRun, ASecondRunResumesTheSearchAndReusesTheOriginalsBuild) {
  fs::path dir = fs::temp_directory_path() / ("kb_tune_resume_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  tuner::TuneOptions opt = vector_add_run(dir);
  opt.state_dir = (dir / "state").string();
  TwoClaimedGpus probe;
  const tuner::TuneSummary first = tuner::run_tune(opt, "/nonexistent/kernelblaster", probe, nullptr);
  ASSERT_EQ(first.evaluations, 2) << first.reason;
  EXPECT_EQ(first.builds_searched, 1);
  ASSERT_TRUE(fs::exists(dir / "state" / "search.json"));
  ASSERT_TRUE(fs::exists(dir / "state" / "builds"));
  EXPECT_FALSE(fs::is_empty(dir / "state" / "builds"));  // the original's harness object and program

  opt.max_evals = 3;
  opt.log = (dir / "log.json").string();
  const tuner::TuneSummary second = tuner::run_tune(opt, "/nonexistent/kernelblaster", probe, nullptr);
  EXPECT_EQ(second.evaluations, 3) << second.reason;
  EXPECT_EQ(second.evaluations_now, 1);
  EXPECT_EQ(second.builds_searched, 2);
  // The original's program came from the first run: no nvcc for it.
  EXPECT_LT(second.phases_s.at("reference_build"), 0.5 * first.phases_s.at("reference_build"));
  EXPECT_LT(second.phases_s.at("reference_build"), 1.0);
  // The run log holds this run's evaluation alone (the KB learns it once).
  nlohmann::json log = nlohmann::json::parse(read_file(opt.log));
  EXPECT_EQ(log["evaluations"].size(), 1u);

  opt.fresh_search = true;
  opt.max_evals = 1;
  const tuner::TuneSummary fresh = tuner::run_tune(opt, "/nonexistent/kernelblaster", probe, nullptr);
  EXPECT_EQ(fresh.evaluations, 1);
  EXPECT_EQ(fresh.evaluations_now, 1);
  EXPECT_EQ(fresh.builds_searched, 1);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
