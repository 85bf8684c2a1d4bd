#include "build_step/build_step.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "build_step/build_record.h"
#include "build_step/build_stats.h"
#include "build_step/lockfile.h"
#include "build_step/results_cache.h"
#include "build_step/tune_flight.h"
#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class BuildStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_source = m_dir.write("proj/src/k.cu", "#include \"k.h\"\n#ifndef BLOCK\n#define BLOCK 256\n#endif\n");
    m_dir.write("proj/src/k.h", "#pragma once\n");
    m_req.source = m_source;
    m_req.harness = m_dir.write("proj/harness/k_harness.cu", "int main() {}\n");
    m_req.out = m_dir.path("gen/k.cu");
    m_req.rsp = m_dir.path("gen/k.cu.rsp");
    m_req.stamp = m_dir.path("gen/k.cu.stamp");
    m_req.depfile = m_dir.path("gen/k.cu.d");
    m_req.cache_dir = m_dir.path("cache");
    m_req.lockfile = m_dir.path("proj/kernelblaster.lock.json");
    m_req.arch = "sm_90";
    m_env.tool_version = "test";
    m_env.kb_version = "kb";
    m_env.nvcc_version = [this](std::string* why) {
      if (m_nvcc_missing) *why = "nvcc could not be run (/no/nvcc --version: could not start: No such file or directory)";
      return m_nvcc_missing ? std::string() : std::string("nvcc test");
    };
    m_env.probe_gpu = [this](std::string* why) -> std::optional<GpuFingerprint> {
      if (m_gpu) return *m_gpu;
      *why = "no GPU here";
      return std::nullopt;
    };
    m_env.tune = [this](const TuneRequest& tr) {
      ++m_tunes;
      TuneOutcome t = m_tune_outcome;
      if (t.end == TuneEnd::tuned)
        t.tuned_text = "#define BLOCK 128\n#line 1 \"" + tr.source + "\"\n" + slurp(tr.source);
      return t;
    };
    m_tune_outcome.end = TuneEnd::tuned;
    m_tune_outcome.speedup = 1.4;
    m_tune_outcome.config = {{"BLOCK", "128"}};
    m_tune_outcome.flags = {"-use_fast_math"};
    m_tune_outcome.seconds = 12;
  }

  BuildReport run() { return run_build_step(m_req, m_env); }

  testing::TestDir m_dir;
  std::string m_source;
  BuildRequest m_req;
  BuildEnvironment m_env;
  std::optional<GpuFingerprint> m_gpu;
  TuneOutcome m_tune_outcome;
  int m_tunes = 0;
  bool m_nvcc_missing = false;
};

TEST_F(BuildStepTest, AGpuThatCudaCannotUseIsNamedNotCalledNoGpu) {
  m_env.gpu_device_present = [] { return true; };
  EXPECT_EQ(run().line,
            "kernelblaster: k.cu: a GPU is here but CUDA cannot use it (no GPU here) and no cached result for sm_90; "
            "using the original");
  m_env.gpu_device_present = [] { return false; };
  EXPECT_EQ(run().line, "kernelblaster: k.cu: no GPU and no cached result for sm_90; using the original");
}

TEST_F(BuildStepTest, AMissingNvccIsNamedNotTakenForAStaleEntry) {
  m_gpu = testing::h200();
  run();  // tuned and cached with nvcc present
  m_nvcc_missing = true;
  BuildReport r = run();
  EXPECT_EQ(r.line,
            "kernelblaster: k.cu: nvcc could not be run (/no/nvcc --version: could not start: No such file or "
            "directory); using the original");
  EXPECT_EQ(r.action, BuildAction::original);
  EXPECT_EQ(m_tunes, 1);
}

TEST_F(BuildStepTest, TheStampIsTheStepsRecordForTheBuildsReport) {
  m_gpu = testing::h200();
  m_req.target = "app";
  BuildReport r = run();
  std::string why;
  std::optional<BuildRecord> rec = parse_build_record(slurp(m_req.stamp), m_req.stamp, &why);
  ASSERT_TRUE(rec) << why;
  EXPECT_EQ(rec->target, "app");
  EXPECT_EQ(rec->action, BuildAction::tuned);
  EXPECT_EQ(rec->cause, BuildCause::tuned);
  EXPECT_EQ(rec->origin, ResultOrigin::tuning);
  EXPECT_EQ(rec->key, r.key);
  EXPECT_EQ(rec->line, r.line);
  EXPECT_EQ(rec->out, m_req.out);
  ASSERT_TRUE(rec->result);
  EXPECT_DOUBLE_EQ(rec->result->speedup, 1.4);
  m_gpu.reset();  // the next step decides otherwise, and its record says so
  m_req.cache_dir = m_dir.path("empty-cache");
  run();
  rec = parse_build_record(slurp(m_req.stamp), m_req.stamp, &why);
  ASSERT_TRUE(rec) << why;
  EXPECT_EQ(rec->cause, BuildCause::no_gpu);
  EXPECT_EQ(rec->action, BuildAction::original);
  EXPECT_FALSE(rec->result);
}

TEST_F(BuildStepTest, NoGpuUsesTheOriginalAndSaysSo) {
  BuildReport r = run();
  EXPECT_EQ(r.line, "kernelblaster: k.cu: no GPU and no cached result for sm_90; using the original");
  EXPECT_EQ(r.action, BuildAction::original);
  EXPECT_EQ(slurp(m_req.out), "#line 1 \"" + m_source + "\"\n" + slurp(m_source));
  EXPECT_EQ(slurp(m_req.rsp), "");
  EXPECT_NE(slurp(m_req.depfile).find("k.h"), std::string::npos);
  EXPECT_FALSE(r.strict_failure);
  EXPECT_EQ(m_tunes, 0);
  m_req.strict = true;
  EXPECT_TRUE(run().strict_failure);
}

// A cached result that cannot be read is a miss that the line names: the
// build tunes again and says why.
TEST_F(BuildStepTest, AnUnreadableCacheEntryIsAMissTheLineNames) {
  m_gpu = testing::h200();
  run();
  ResultsCache cache(m_req.cache_dir, 1 << 20);
  std::ofstream(cache.entry_path(*m_gpu, run().key)) << "{ torn";
  BuildReport again = run();
  EXPECT_EQ(m_tunes, 2);
  EXPECT_EQ(again.action, BuildAction::tuned);
  EXPECT_NE(again.line.find("a cached result cannot be read ("), std::string::npos) << again.line;
  EXPECT_NE(again.line.find("), so it counts as a miss; tuned on NVIDIA H200"), std::string::npos) << again.line;
}

TEST_F(BuildStepTest, TunesOnAMissThenHitsTheCacheWithoutRewriting) {
  m_gpu = testing::h200();
  BuildReport first = run();
  EXPECT_EQ(m_tunes, 1);
  EXPECT_EQ(first.action, BuildAction::tuned);
  EXPECT_EQ(first.line, "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s: 1.40x, BLOCK=128, -use_fast_math");
  EXPECT_EQ(slurp(m_req.out).rfind("#define BLOCK 128\n#line 1 ", 0), 0u);
  EXPECT_EQ(slurp(m_req.rsp), "-use_fast_math\n");
  EXPECT_TRUE(first.wrote_source);

  BuildReport second = run();
  EXPECT_EQ(m_tunes, 1);
  EXPECT_EQ(second.origin, ResultOrigin::cache);
  EXPECT_NE(second.line.find("applied tuned result for NVIDIA H200 from the cache (1.40x, BLOCK=128, -use_fast_math)"),
            std::string::npos);
  EXPECT_FALSE(second.wrote_source);  // unchanged: nothing to recompile

  // The same cached result serves a machine without the GPU that names it.
  m_gpu.reset();
  m_req.target_gpu = "NVIDIA H200";
  EXPECT_EQ(run().origin, ResultOrigin::cache);
}

TEST_F(BuildStepTest, NothingBetterIsRememberedToo) {
  m_gpu = testing::h200();
  m_tune_outcome.end = TuneEnd::no_gain;
  EXPECT_NE(run().line.find("nothing beat the original; using the original"), std::string::npos);
  BuildReport again = run();
  EXPECT_EQ(m_tunes, 1);
  EXPECT_EQ(again.origin, ResultOrigin::cache);
  EXPECT_EQ(again.action, BuildAction::original);
  EXPECT_FALSE(again.strict_failure);
}

TEST_F(BuildStepTest, ApplyNeverTunesAndTuneAlwaysDoes) {
  m_gpu = testing::h200();
  m_req.mode = Mode::apply;
  EXPECT_NE(run().line.find("MODE APPLY does not tune"), std::string::npos);
  EXPECT_EQ(m_tunes, 0);
  m_req.mode = Mode::automatic;
  run();
  m_req.mode = Mode::tune;
  run();
  EXPECT_EQ(m_tunes, 2);
}

TEST_F(BuildStepTest, TunerFailureFallsBackUnlessStrict) {
  m_gpu = testing::h200();
  m_tune_outcome.end = TuneEnd::failed;
  m_tune_outcome.error = "kernelblaster tune exit 2";
  BuildReport r = run();
  EXPECT_EQ(r.line, "kernelblaster: k.cu: tuning failed (kernelblaster tune exit 2); using the original");
  EXPECT_FALSE(r.strict_failure);
  m_req.strict = true;
  EXPECT_TRUE(run().strict_failure);
}

TEST_F(BuildStepTest, AnotherGpuThanTheTargetIsNotTunedOn) {
  m_gpu = GpuFingerprint{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 13};
  m_req.target_gpu = "NVIDIA H200";
  BuildReport r = run();
  EXPECT_EQ(m_tunes, 0);
  EXPECT_NE(r.line.find("is not the target NVIDIA H200"), std::string::npos);
}

TEST_F(BuildStepTest, LockfileIsUpdatedAppliedAndRefusedWhenStale) {
  m_gpu = testing::h200();
  m_req.update_lockfile = true;
  BuildReport tuned = run();
  Lockfile lock = read_lockfile(m_req.lockfile);
  ASSERT_EQ(lock.sources.count("src/k.cu"), 1u);
  EXPECT_EQ(lock.sources["src/k.cu"][testing::h200().id()].key, tuned.key);

  // A CI machine: no GPU, an empty cache, the committed lockfile.
  m_gpu.reset();
  m_req.update_lockfile = false;
  m_req.target_gpu = "sm_90";
  m_req.cache_dir = m_dir.path("empty-cache");
  std::filesystem::remove(m_req.out);
  BuildReport applied = run();
  EXPECT_EQ(applied.origin, ResultOrigin::lockfile);
  EXPECT_NE(applied.line.find("applied tuned result for NVIDIA H200 from kernelblaster.lock.json (1.40x"), std::string::npos);
  EXPECT_EQ(slurp(m_req.out).rfind("#define BLOCK 128\n", 0), 0u);

  // The source changes: the entry no longer describes it.
  std::ofstream(m_source, std::ios::app) << "// edited\n";
  BuildReport stale = run();
  EXPECT_EQ(stale.action, BuildAction::original);
  EXPECT_NE(stale.line.find("kernelblaster.lock.json entry for NVIDIA H200 is stale"), std::string::npos);
  EXPECT_EQ(slurp(m_req.rsp), "");
}

// Issue 74: a miss says why. A build whose key differs from a stored
// result's only by its flags (another CMAKE_BUILD_TYPE) names the part and
// both values, for the cache's nearest result and a stale lockfile entry;
// with a result required (a CI build), the miss fails the build and never
// tunes.
TEST_F(BuildStepTest, AMissNamesThePartsOfTheKeyThatDifferAndCanFailTheBuild) {
  m_gpu = testing::h200();
  m_req.update_lockfile = true;
  m_req.flags = {"-O3", "-DNDEBUG"};
  run();
  m_req.update_lockfile = false;
  m_req.flags = {"-O2", "-g"};
  m_req.require_result = true;
  BuildReport missed = run();
  EXPECT_EQ(m_tunes, 1);
  EXPECT_EQ(missed.cause, BuildCause::result_required);
  EXPECT_TRUE(missed.strict_failure);
  EXPECT_NE(missed.line.find("the nearest cached result for NVIDIA H200 was measured with another flags (-O2 -g, was "
                             "-O3 -DNDEBUG); "),
            std::string::npos)
      << missed.line;
  EXPECT_NE(missed.line.find("entry for NVIDIA H200 is stale (measured with another flags (-O2 -g, was -O3 -DNDEBUG)); "),
            std::string::npos)
      << missed.line;
  EXPECT_NE(missed.line.find("a result is required (KERNELBLASTER_REQUIRE_RESULT); using the original"),
            std::string::npos)
      << missed.line;
  m_req.flags = {"-O3", "-DNDEBUG"};  // the key it was tuned for: a hit, no failure
  BuildReport hit = run();
  EXPECT_EQ(hit.action, BuildAction::applied);
  EXPECT_FALSE(hit.strict_failure);
}

// An entry is data someone else may have written (issue 74): a lockfile
// edited in a pull request whose flags name another compiler directory, a
// cache entry whose define carries code. The environment's check refuses
// it; the build says so, counts it a miss and compiles the original.
TEST_F(BuildStepTest, ARefusedEntryIsAMissThatTheLineNames) {
  m_gpu = testing::h200();
  m_req.update_lockfile = true;
  run();
  Lockfile lock = read_lockfile(m_req.lockfile);
  TunedResult& entry = lock.sources["src/k.cu"][testing::h200().id()];
  entry.flags = {"--compiler-bindir=/tmp/elsewhere"};
  std::ofstream(m_req.lockfile) << serialize_lockfile(lock);
  std::vector<std::string> asked;
  m_env.refuse_entry = [&asked](const TunedResult& r, const BuildRequest& q) {
    const std::string& arch = q.arch;
    asked.push_back(arch);
    for (const std::string& f : r.flags)
      if (f != "-use_fast_math") return "flag '" + f + "' is not one the tuner sets for " + arch;
    return std::string();
  };
  m_gpu.reset();  // a CI machine: no GPU, an empty cache, the edited lockfile
  m_req.update_lockfile = false;
  m_req.target_gpu = "sm_90";
  m_req.cache_dir = m_dir.path("empty-cache");
  BuildReport r = run();
  EXPECT_EQ(r.action, BuildAction::original);
  EXPECT_EQ(r.refused_entry, "flag '--compiler-bindir=/tmp/elsewhere' is not one the tuner sets for sm_90");
  EXPECT_NE(r.line.find("the kernelblaster.lock.json entry for NVIDIA H200 is refused (flag "
                        "'--compiler-bindir=/tmp/elsewhere' is not one the tuner sets for sm_90), so it counts as a miss; "),
            std::string::npos)
      << r.line;
  EXPECT_EQ(slurp(m_req.rsp), "");
  EXPECT_EQ(asked, (std::vector<std::string>{"sm_90"}));

  // The cache's own entry, with the tuner's flag, is applied as before.
  m_req.cache_dir = m_dir.path("cache");
  EXPECT_EQ(run().action, BuildAction::applied);
}

// A tuning starts from the lockfile's winner for this GPU, whatever its
// key: an edit to the source makes the entry stale, and the re-tune
// measures the old winner first (the softmax example's winner is a cross a
// 30-s search finds only by luck). Nothing when the lockfile kept the original.
TEST_F(BuildStepTest, ATuningStartsFromTheLockfilesWinner) {
  m_gpu = testing::h200();
  std::vector<std::string> starts;
  m_env.tune = [&](const TuneRequest& tr) {
    starts.push_back(tr.start_from);
    TuneOutcome t = m_tune_outcome;
    t.tuned_text = "#define BLOCK 128\n#line 1 \"" + tr.source + "\"\n" + slurp(tr.source);
    return t;
  };
  m_req.update_lockfile = true;
  run();  // no lockfile yet
  std::ofstream(m_source, std::ios::app) << "// edited\n";
  run();  // its entry is stale now
  m_req.mode = Mode::tune;
  run();  // TUNE: the entry is current, and still a start
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_EQ(starts[0], "");
  EXPECT_EQ(starts[1], "BLOCK=128,-use_fast_math");
  EXPECT_EQ(starts[2], "BLOCK=128,-use_fast_math");

  m_tune_outcome.end = TuneEnd::no_gain;
  run();  // the entry now keeps the original
  run();
  ASSERT_EQ(starts.size(), 5u);
  EXPECT_EQ(starts[4], "");
}

TEST_F(BuildStepTest, MinSpeedupFiltersResults) {
  m_gpu = testing::h200();
  run();
  m_req.min_speedup = 2.0;
  BuildReport r = run();
  EXPECT_EQ(r.action, BuildAction::original);
  EXPECT_NE(r.line.find("below MIN_SPEEDUP 2.00"), std::string::npos);
}

TEST_F(BuildStepTest, KeyFollowsHeadersAndFlags) {
  std::string k0 = run().key;
  m_dir.write("proj/src/k.h", "#pragma once\nint changed;\n");
  std::string k1 = run().key;
  EXPECT_NE(k0, k1);
  m_req.flags = {"-lineinfo"};
  EXPECT_NE(run().key, k1);
}

TEST(BuildMode, Names) {
  Mode m;
  EXPECT_TRUE(mode_from_name("auto", &m));
  EXPECT_EQ(m, Mode::automatic);
  EXPECT_TRUE(mode_from_name("TUNE", &m));
  EXPECT_EQ(m, Mode::tune);
  EXPECT_FALSE(mode_from_name("FAST", &m));
}

}  // namespace
}  // namespace kernelblaster::build_step

namespace kernelblaster::build_step {
namespace {

TEST_F(BuildStepTest, TuneWithoutAGpuKeepsKnownResults) {
  m_gpu = testing::h200();
  run();  // tuned and cached
  m_gpu.reset();
  m_req.mode = Mode::tune;
  m_req.target_gpu = "NVIDIA H200";
  BuildReport r = run();
  EXPECT_EQ(r.origin, ResultOrigin::cache);
  EXPECT_EQ(r.action, BuildAction::applied);
  EXPECT_EQ(m_tunes, 1);
}

TEST_F(BuildStepTest, EveryStepIsCountedByItsFirstRealCause) {
  const std::string stats = m_dir.path("stats");
  m_nvcc_missing = true;
  BuildReport r = run();
  EXPECT_EQ(r.cause, BuildCause::nvcc_unusable);
  EXPECT_TRUE(count_build_step(stats, r));
  m_nvcc_missing = false;
  r = run();
  EXPECT_EQ(r.cause, BuildCause::no_gpu);
  EXPECT_TRUE(count_build_step(stats, r));
  EXPECT_TRUE(count_build_step(stats, r));
  m_gpu = testing::h200();
  r = run();
  EXPECT_EQ(r.cause, BuildCause::tuned);
  EXPECT_TRUE(count_build_step(stats, r));
  EXPECT_EQ(run().cause, BuildCause::applied);
  std::map<std::string, long long> counts = read_build_stats(stats);
  EXPECT_EQ(counts, (std::map<std::string, long long>{{"nvcc_unusable", 1}, {"no_gpu", 2}, {"tuned", 1}}));
  // A torn stats file is started over, never a failed build step.
  std::ofstream(stats + "/stats.json") << "{\"counts\": ";
  EXPECT_THROW(read_build_stats(stats), std::runtime_error);
  EXPECT_TRUE(count_build_step(stats, r));
  EXPECT_EQ(read_build_stats(stats), (std::map<std::string, long long>{{"tuned", 1}}));
  zero_build_stats(stats);
  EXPECT_TRUE(read_build_stats(stats).empty());
}

}  // namespace
}  // namespace kernelblaster::build_step

namespace kernelblaster::build_step {
namespace {

// A source with no harness compiles the recording shim; the line promises a
// harness after the next run of the tests only where that is true.
TEST_F(BuildStepTest, ARecordingLineSaysWhatMustHappenForAHarness) {
  m_gpu = testing::h200();
  m_req.harness.clear();
  m_req.recording_shim = "// shim\n";
  m_req.harness_note = "recording the calls of scale into calls.jsonl";
  BuildReport r = run();
  EXPECT_EQ(r.cause, BuildCause::recording);
  EXPECT_NE(r.line.find("the next build synthesizes a harness from what they recorded"), std::string::npos) << r.line;
  EXPECT_NE(r.line.find("(a shim compiled in the original's place, calling it; it records only under "
                        "kernelblaster_generated/record or ctest)"),
            std::string::npos)
      << r.line;
  EXPECT_NE(r.line.find("run the project's tests (ctest) or its programs through kernelblaster_generated/record"),
            std::string::npos)
      << r.line;
  EXPECT_EQ(slurp(m_req.out), "// shim\n");
  m_req.recording_next = "the 2 calls recorded so far passed buffers that are not device memory, so they give no "
                         "harness: run the project's tests or programs on a machine with a GPU";
  r = run();
  EXPECT_EQ(r.line.find("the next build synthesizes"), std::string::npos) << r.line;
  EXPECT_NE(r.line.find("on a machine with a GPU"), std::string::npos) << r.line;
}

// The kernel recorder records while the original is compiled as it is.
TEST_F(BuildStepTest, RecordingKernelLaunchesCompilesTheOriginal) {
  m_gpu = testing::h200();
  m_req.harness.clear();
  m_req.recording_kernels = true;
  m_req.harness_note = "recording the launches of k into launches/";
  BuildReport r = run();
  EXPECT_EQ(r.cause, BuildCause::recording);
  EXPECT_NE(r.line.find("recording the launches of k into launches/ (the original compiled as it is)"), std::string::npos)
      << r.line;
  EXPECT_EQ(slurp(m_req.out).rfind("#line 1 ", 0), 0u) << "the original behind its #line";
}

// Issue 72: the shim costs a program nothing where no build could tune
// next. Without a GPU, on another GPU than the target, and in MODE APPLY,
// the original is compiled and the line says why; the shim's compile is
// not even tried there.
TEST_F(BuildStepTest, OnlyABuildThatCouldTuneNextCompilesTheShim) {
  m_req.harness.clear();
  m_req.recording_shim = "// shim\n";
  m_req.harness_note = "recording the calls of scale into calls.jsonl";
  int shim_checks = 0;
  m_env.shim_compile_error = [&](const BuildRequest&) {
    ++shim_checks;
    return std::string();
  };
  BuildReport r = run();
  EXPECT_EQ(r.cause, BuildCause::no_gpu);
  EXPECT_EQ(r.action, BuildAction::original);
  EXPECT_EQ(r.line, "kernelblaster: k.cu: no GPU, no cached result for sm_90 and no harness yet (a build on a machine "
                    "with the GPU records); using the original");
  EXPECT_EQ(slurp(m_req.out), "#line 1 \"" + m_source + "\"\n" + slurp(m_source));
  m_gpu = testing::h200();
  m_req.mode = Mode::apply;
  r = run();
  EXPECT_EQ(r.cause, BuildCause::apply_without_result);
  EXPECT_EQ(r.line, "kernelblaster: k.cu: no cached or locked result for NVIDIA H200 and no harness yet (MODE APPLY "
                    "neither records nor tunes); using the original");
  EXPECT_EQ(slurp(m_req.out).rfind("#line 1 ", 0), 0u);
  m_req.mode = Mode::automatic;
  m_req.target_gpu = "NVIDIA A100-SXM4-80GB";
  EXPECT_EQ(run().cause, BuildCause::other_gpu);
  EXPECT_EQ(shim_checks, 0);
  m_req.target_gpu.clear();
  r = run();
  EXPECT_EQ(r.cause, BuildCause::recording);
  EXPECT_EQ(slurp(m_req.out), "// shim\n");
  EXPECT_EQ(shim_checks, 1);
  EXPECT_NE(r.line.find("it records only under kernelblaster_generated/record or ctest"), std::string::npos) << r.line;
}

// A shim that does not compile with the target's settings never reaches
// it: the kernel recorder records the original's launches, or, with no
// recorder, the original is compiled and the line says why.
TEST_F(BuildStepTest, AShimThatDoesNotCompileGivesTheOriginal) {
  m_gpu = testing::h200();
  m_req.harness.clear();
  m_req.recording_shim = "// shim\n";
  m_req.harness_note = "recording the calls of scale into calls.jsonl";
  m_env.shim_compile_error = [](const BuildRequest&) { return std::string("shim.cu(3): error: no such type"); };
  BuildReport r = run();
  EXPECT_EQ(r.cause, BuildCause::no_harness);
  EXPECT_EQ(r.line, "kernelblaster: k.cu: no harness, and the recording shim does not compile (shim.cu(3): error: no "
                    "such type); using the original");
  m_req.recording_kernels = true;
  m_req.kernel_records = "launches/";
  r = run();
  EXPECT_EQ(r.cause, BuildCause::recording);
  EXPECT_NE(r.line.find("the recording shim does not compile (shim.cu(3): error: no such type), so the launches of the "
                        "kernels are recorded into launches/ (the original compiled as it is)"),
            std::string::npos)
      << r.line;
  EXPECT_EQ(slurp(m_req.out).rfind("#line 1 ", 0), 0u);
}

}  // namespace
}  // namespace kernelblaster::build_step

namespace kernelblaster::build_step {
namespace {

// Single flight (issue 27): two builds of the same source for the same GPU
// at once tune it once; the second waits, says for whom, and applies the
// first one's result.
TEST_F(BuildStepTest, ConcurrentBuildsOfOneKeyTuneItOnce) {
  m_gpu = testing::h200();
  std::atomic<int> tunes{0};
  m_env.tune = [&](const TuneRequest& tr) {
    ++tunes;
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    TuneOutcome t = m_tune_outcome;
    t.tuned_text = "#define BLOCK 128\n#line 1 \"" + tr.source + "\"\n" + slurp(tr.source);
    return t;
  };
  std::mutex said_mutex;
  std::vector<std::string> said;
  m_env.say = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(said_mutex);
    said.push_back(line);
  };
  std::vector<BuildReport> reports(4);
  std::vector<std::thread> builds;
  for (int i = 0; i < 4; ++i) {
    BuildRequest req = m_req;
    req.out = m_dir.path("gen" + std::to_string(i) + "/k.cu");
    req.rsp = req.out + ".rsp";
    req.stamp = req.out + ".stamp";
    req.depfile = req.out + ".d";
    builds.emplace_back([this, req, i, &reports] { reports[static_cast<std::size_t>(i)] = run_build_step(req, m_env); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (std::thread& t : builds) t.join();
  EXPECT_EQ(tunes.load(), 1);
  int tuned = 0, applied = 0;
  for (const BuildReport& r : reports) {
    tuned += r.cause == BuildCause::tuned;
    applied += r.cause == BuildCause::applied;
    if (r.cause == BuildCause::applied)
      EXPECT_NE(r.line.find("tuned by k.cu (pid "), std::string::npos) << r.line;
  }
  EXPECT_EQ(tuned, 1);
  EXPECT_EQ(applied, 3);
  ASSERT_EQ(said.size(), 3u);
  EXPECT_NE(said[0].find("kernelblaster: k.cu: waiting for k.cu (pid "), std::string::npos) << said[0];
}

// A build that waits for one that dies (kill -9) takes over and tunes.
TEST_F(BuildStepTest, AWaitingBuildWhoseTunerDiesTakesOver) {
  m_gpu = testing::h200();
  // The key this build will tune, from a dry look first.
  BuildRequest dry = m_req;
  dry.dry_run = true;
  const std::string key = run_build_step(dry, m_env).key;
  ASSERT_FALSE(key.empty());
  const std::string lock = tuning_lock_path(m_req.cache_dir, *m_gpu, key);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a build that took the key and then died mid-tuning
    FileLock held(lock, "k.cu (pid " + std::to_string(::getpid()) + ", killed)", {});
    char c = 'x';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  std::thread killer([child] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(child, SIGKILL);
  });
  std::vector<std::string> said;
  m_env.say = [&](const std::string& line) { said.push_back(line); };
  BuildReport r = run();
  killer.join();
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(m_tunes, 1);
  EXPECT_EQ(r.cause, BuildCause::tuned);
  EXPECT_NE(r.line.find("killed) ended without a result, so this build tunes"), std::string::npos) << r.line;
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("waiting for k.cu (pid "), std::string::npos) << said[0];
}

}  // namespace
}  // namespace kernelblaster::build_step

namespace kernelblaster::build_step {
namespace {

// The line says how much of the space the budget tried, when the tuner says.
TEST_F(BuildStepTest, TheTunedLineSaysHowManyConfigurationsWereTried) {
  m_gpu = testing::h200();
  m_tune_outcome.evaluations = 23;
  m_tune_outcome.space_valid = 9455;
  EXPECT_EQ(run().line,
            "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s (23 of 9455 configurations tried): 1.40x, BLOCK=128, "
            "-use_fast_math");
}

// And what compute-sanitizer's memcheck said of the winner, or why it did not run.
TEST_F(BuildStepTest, TheTunedLineSaysWhatMemcheckSaidOfTheWinner) {
  m_gpu = testing::h200();
  m_tune_outcome.memcheck = "not checked under compute-sanitizer's memcheck: no compute-sanitizer next to nvcc or on PATH";
  EXPECT_EQ(run().line,
            "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s: 1.40x, BLOCK=128, -use_fast_math; not checked under "
            "compute-sanitizer's memcheck: no compute-sanitizer next to nvcc or on PATH");
}

// And how the winner does at the sizes the search compared it at one by one,
// and at the recorded sizes it did not time (SGEMM_CUDA's kernel 10).
TEST_F(BuildStepTest, TheTunedLineSaysWhatTheWinnerSlowsAtSomeSizes) {
  m_gpu = testing::h200();
  m_tune_outcome.slower_at_a_size = "tile 0.973x at call4, 1.031x over 2 sizes";
  m_tune_outcome.other_sizes = "0.942x (call3) to 0.966x (call0) at 4 sizes";
  EXPECT_EQ(run().line,
            "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s: 1.40x, BLOCK=128, -use_fast_math; slower at one size: "
            "tile 0.973x at call4, 1.031x over 2 sizes; at the other recorded sizes: 0.942x (call3) to 0.966x (call0) "
            "at 4 sizes");
}

// And kernels a loop of their own would not show faster (the cuda-samples
// transpose: 1.10x in the harness, 1.006-1.037x by its own timing).
TEST_F(BuildStepTest, TheTunedLineSaysWhichKernelsAreShorterThanTheirLaunch) {
  m_gpu = testing::h200();
  m_tune_outcome.launch_paced =
      "at 1024x1024 the harness took 4.60 us to issue a launch, longer than copy now runs (4.06 to 3.58 us, 1.134x)";
  EXPECT_EQ(run().line,
            "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s: 1.40x, BLOCK=128, -use_fast_math; paced by its "
            "launches: at 1024x1024 the harness took 4.60 us to issue a launch, longer than copy now runs (4.06 to "
            "3.58 us, 1.134x)");
}

// And how those tries ended (issue 38: a line that says only "nothing beat
// the original" hides that most tries were wrong results or crashes).
TEST_F(BuildStepTest, TheLineSaysHowTheTriesEnded) {
  m_gpu = testing::h200();
  m_tune_outcome.end = TuneEnd::no_gain;
  m_tune_outcome.evaluations = 24;
  m_tune_outcome.space_valid = 4529759;
  m_tune_outcome.outcomes = {{Status::ok, 10}, {Status::wrong_result, 8}, {Status::crashed, 4}, {Status::timed_out, 1},
                             {Status::launch_failed, 1}};
  const std::string line = run().line;
  EXPECT_NE(line.find("(24 of 4529759 configurations tried: 10 verified, 8 wrong result, 4 crashed, 1 launch failed, "
                      "1 timed out): nothing beat the original"),
            std::string::npos) << line;
}

// A faster configuration that slowed a kernel down, or a best below the
// minimum gain, is named: "nothing beat the original" alone would hide it.
TEST_F(BuildStepTest, TheLineSaysWhyAFasterConfigurationWasNotKept) {
  m_gpu = testing::h200();
  m_tune_outcome.end = TuneEnd::no_gain;
  m_tune_outcome.evaluations = 17;
  m_tune_outcome.space_valid = 303;
  m_tune_outcome.reason =
      "no verified configuration beat the original in 17 evaluations without slowing a kernel down (the fastest, "
      "BLOCK_ROWS=8 at 1.09x, made transposeCoarseGrained 0.970x at 1024x1024)";
  std::string line = run().line;
  EXPECT_NE(line.find("nothing beat the original (no verified configuration beat the original in 17 evaluations "
                      "without slowing a kernel down (the fastest, BLOCK_ROWS=8 at 1.09x, made "
                      "transposeCoarseGrained 0.970x at 1024x1024)); using the original"),
            std::string::npos)
      << line;
}

TEST_F(BuildStepTest, ThePlainReasonAddsNothingToTheCount) {
  m_gpu = testing::h200();
  m_tune_outcome.end = TuneEnd::no_gain;
  m_tune_outcome.reason = "no verified configuration beat the original in 23 evaluations";
  EXPECT_NE(run().line.find("nothing beat the original; using the original"), std::string::npos);
}

TEST(TriedBreakdown, VerifiedFirstThenTheMostFrequent) {
  EXPECT_EQ(tried_breakdown({}, 0), "");
  EXPECT_EQ(tried_breakdown({{Status::crashed, 2}}, 3), "3 duplicate, 2 crashed");
  EXPECT_EQ(tried_breakdown({{Status::ok, 1}, {Status::compile_failed, 1}}, 0), "1 verified, 1 compile failed");
}

// Issue 72: a search the budget did not finish goes on in the next build.
// The tuner gets a state directory of the cache per key and GPU; the best
// so far is cached (and applied), the line says how far the search is, the
// depfile names a file never made so the build tool runs the step again,
// and the next build resumes rather than applying, until the search is over.
TEST_F(BuildStepTest, ASearchThatGoesOnIsResumedByTheNextBuild) {
  m_gpu = testing::h200();
  std::vector<TuneRequest> asked;
  m_env.tune = [&](const TuneRequest& tr) {
    asked.push_back(tr);
    TuneOutcome t = m_tune_outcome;
    t.tuned_text = "#define BLOCK 128\n#line 1 \"" + tr.source + "\"\n" + slurp(tr.source);
    return t;
  };
  m_tune_outcome.space_valid = 24802;
  m_tune_outcome.evaluations = m_tune_outcome.evaluations_now = 12;
  m_tune_outcome.builds_searched = 1;
  m_tune_outcome.continues = true;
  m_tune_outcome.original_config = {{"BLOCK", "256"}};
  m_tune_outcome.preparation_s = 31;
  m_tune_outcome.phases_s = {{"setup", 1}, {"reference_build", 18}, {"profile", 12}};
  m_tune_outcome.outcomes = {{Status::ok, 10}, {Status::crashed, 2}};
  BuildReport first = run();
  EXPECT_EQ(first.line,
            "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s (12 of 24802 configurations measured so far, 12 in this "
            "build: 10 verified, 2 crashed): 1.40x, BLOCK=128, -use_fast_math; preparing the original took 31 s of the "
            "60 s budget (its build 18 s, its profile 12 s, reading the space 1 s), kept for the next build; continues "
            "next build");
  ASSERT_EQ(asked.size(), 1u);
  ResultsCache cache(m_req.cache_dir, 1 << 20);
  EXPECT_EQ(asked[0].state_dir, cache.tuning_dir(*m_gpu, first.key));
  EXPECT_FALSE(asked[0].fresh_search);
  EXPECT_NE(slurp(m_req.depfile).find(m_req.stamp + kSearchGoesOn), std::string::npos) << slurp(m_req.depfile);
  ASSERT_TRUE(cache.find(*m_gpu, first.key));
  EXPECT_TRUE(cache.find(*m_gpu, first.key)->search_open);

  // A build without the GPU applies the best so far; so does one on the GPU
  // that must not tune (KERNELBLASTER_REQUIRE_RESULT).
  m_req.require_result = true;
  BuildReport required = run();
  EXPECT_EQ(required.action, BuildAction::applied);
  EXPECT_FALSE(required.strict_failure);
  m_req.require_result = false;
  m_gpu.reset();
  m_req.target_gpu = "NVIDIA H200";
  EXPECT_EQ(run().action, BuildAction::applied);
  EXPECT_EQ(asked.size(), 1u);

  // The next build on the GPU resumes; where the search ends, the result
  // is final: applied from then on, and the depfile no longer asks for a run.
  m_gpu = testing::h200();
  m_req.target_gpu.clear();
  m_tune_outcome.evaluations = 53;
  m_tune_outcome.evaluations_now = 41;
  m_tune_outcome.builds_searched = 2;
  m_tune_outcome.continues = false;
  m_tune_outcome.preparation_s = 0.4;
  BuildReport second = run();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(second.line, "kernelblaster: k.cu: tuned on NVIDIA H200 in 12 s (53 of 24802 configurations measured so "
                         "far, 41 in this build: 10 verified, 2 crashed): 1.40x, BLOCK=128, -use_fast_math");
  EXPECT_EQ(slurp(m_req.depfile).find(kSearchGoesOn), std::string::npos);
  EXPECT_EQ(run().origin, ResultOrigin::cache);
  EXPECT_EQ(asked.size(), 2u);
  // MODE TUNE starts the search afresh.
  m_req.mode = Mode::tune;
  run();
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_TRUE(asked[2].fresh_search);
}

// A resumed search whose tuner fails keeps the best so far.
TEST_F(BuildStepTest, AResumedSearchThatFailsKeepsItsBestSoFar) {
  m_gpu = testing::h200();
  m_tune_outcome.continues = true;
  run();
  m_tune_outcome.end = TuneEnd::failed;
  m_tune_outcome.error = "kernelblaster tune exit 2";
  BuildReport r = run();
  EXPECT_EQ(r.action, BuildAction::applied);
  EXPECT_EQ(r.line, "kernelblaster: k.cu: tuning failed (kernelblaster tune exit 2); applied tuned result for NVIDIA "
                    "H200 from the cache, the search's best so far (1.40x, BLOCK=128, -use_fast_math)");
}

// A source whose one evaluation does not fit the budget: the line gives the
// tuner's reason, and the result is not cached, so a larger BUDGET tunes.
TEST_F(BuildStepTest, NothingTriedWithinTheBudgetSaysWhyAndIsNotRemembered) {
  m_gpu = testing::h200();
  m_tune_outcome.end = TuneEnd::no_gain;
  m_tune_outcome.evaluations = 0;
  m_tune_outcome.space_valid = 4529759;
  m_tune_outcome.reason = "the budget left no time to try a configuration (building and running the original took 45 s); raise BUDGET";
  const std::string line = run().line;
  EXPECT_NE(line.find("(0 of 4529759 configurations tried): the budget left no time to try a configuration"),
            std::string::npos) << line;
  EXPECT_NE(line.find("raise BUDGET; using the original; not cached, so the next build tries again"), std::string::npos) << line;
  run();
  EXPECT_EQ(m_tunes, 2);
}

}  // namespace
}  // namespace kernelblaster::build_step

namespace kernelblaster::build_step {
namespace {

// A remote storage in memory, with a note to say instead when asked.
class MemoryStorage final : public RemoteStorage {
 public:
  std::map<std::string, TunedResult> entries;
  std::string failing;  // set: every call fails with it
  int gets = 0, puts = 0;
  std::optional<TunedResult> get(const std::string& gpu_id, const std::string& key, std::string* note) override {
    ++gets;
    if (!failing.empty()) {
      *note = failing;
      return std::nullopt;
    }
    auto it = entries.find(gpu_id + "/" + key);
    return it == entries.end() ? std::nullopt : std::optional<TunedResult>(it->second);
  }
  bool put(const TunedResult& r, std::string* note) override {
    ++puts;
    if (!failing.empty()) {
      *note = "not stored in remote storage (" + failing + ")";
      return false;
    }
    entries[r.gpu.id() + "/" + r.key] = r;
    return true;
  }
  std::string where() const override { return "http://storage.test"; }
};

// Issue 41: a fleet shares results through remote storage. A new result is
// put there; a machine with an empty local cache gets it instead of tuning,
// and keeps a local copy; a server that fails costs one lead on the line.
TEST_F(BuildStepTest, RemoteStorageSharesResultsAndAFailingServerCostsOneLine) {
  auto storage = std::make_shared<MemoryStorage>();
  m_env.remote = storage;
  m_gpu = testing::h200();
  EXPECT_EQ(run().action, BuildAction::tuned);
  EXPECT_EQ(storage->puts, 1);
  ASSERT_EQ(storage->entries.size(), 1u);

  std::filesystem::remove_all(m_req.cache_dir);  // another machine: an empty local cache
  BuildReport shared = run();
  EXPECT_EQ(m_tunes, 1);
  EXPECT_EQ(shared.origin, ResultOrigin::remote_storage);
  EXPECT_NE(shared.line.find("applied tuned result for NVIDIA H200 from remote storage http://storage.test (1.40x"),
            std::string::npos)
      << shared.line;
  EXPECT_EQ(run().origin, ResultOrigin::cache);  // kept locally
  EXPECT_EQ(storage->gets, 2);       // the first build's miss, the second's hit; the third asked nothing

  // A machine without the GPU names it by its fingerprint id and applies
  // what the GPU machine tuned.
  std::filesystem::remove_all(m_req.cache_dir);
  m_gpu.reset();
  m_req.target_gpu = testing::h200().id();
  BuildReport gpu_less = run();
  EXPECT_EQ(gpu_less.origin, ResultOrigin::remote_storage) << gpu_less.line;
  EXPECT_EQ(gpu_less.action, BuildAction::applied);
  m_req.target_gpu.clear();
  m_gpu = testing::h200();

  std::filesystem::remove_all(m_req.cache_dir);
  storage->failing = "remote storage http://storage.test not reached (Connection refused)";
  BuildReport down = run();
  EXPECT_EQ(down.action, BuildAction::tuned);  // the local path goes on
  EXPECT_NE(down.line.find("not reached (Connection refused); tuned on"), std::string::npos) << down.line;
  EXPECT_NE(down.line.find("(not stored in remote storage"), std::string::npos) << down.line;
}

// Issue 74: a build says what sharing did. A miss is said; a server that
// could not answer is asked again next build (the depfile names a file
// never made), where a plain rebuild used to keep the original.
TEST_F(BuildStepTest, RemoteStorageThatMissedIsSaidAndOneThatWasDownIsAskedAgain) {
  auto storage = std::make_shared<MemoryStorage>();
  m_env.remote = storage;
  m_req.target_gpu = testing::h200().id();
  BuildReport missed = run();
  EXPECT_NE(missed.line.find("remote storage http://storage.test has no result for this key; "), std::string::npos)
      << missed.line;
  EXPECT_EQ(slurp(m_req.depfile).find(kSearchGoesOn), std::string::npos);
  storage->failing = "remote storage http://storage.test not reached (Connection refused)";
  BuildReport down = run();
  EXPECT_EQ(down.action, BuildAction::original);
  EXPECT_NE(down.line.find("not reached (Connection refused); "), std::string::npos) << down.line;
  EXPECT_NE(down.line.find("; remote storage is asked again next build"), std::string::npos) << down.line;
  EXPECT_NE(slurp(m_req.depfile).find(kSearchGoesOn), std::string::npos);
}

// Issue 74: a GPU-less build asks remote storage by the GPU's id. TARGET_GPU
// as a name finds the id in the lockfile's entry it selects; where nothing
// gives one, the line says the server was not asked.
TEST_F(BuildStepTest, ANameInTargetGpuAsksRemoteStorageByTheLockfilesIdOrSaysItDidNot) {
  auto storage = std::make_shared<MemoryStorage>();
  m_env.remote = storage;
  m_gpu = testing::h200();
  m_req.update_lockfile = true;
  run();
  Lockfile lock = read_lockfile(m_req.lockfile);
  lock.sources["src/k.cu"][testing::h200().id()].key = "an-older-key";  // stale: only its GPU is of use
  std::ofstream(m_req.lockfile) << serialize_lockfile(lock);

  m_gpu.reset();
  m_req.update_lockfile = false;
  m_req.cache_dir = m_dir.path("empty-cache");
  m_req.target_gpu = "NVIDIA H200";
  BuildReport named = run();
  EXPECT_EQ(named.origin, ResultOrigin::remote_storage) << named.line;
  EXPECT_EQ(named.action, BuildAction::applied);

  std::filesystem::remove(m_req.lockfile);
  m_req.cache_dir = m_dir.path("another-empty-cache");
  const int gets = storage->gets;
  BuildReport unasked = run();
  EXPECT_EQ(storage->gets, gets);
  EXPECT_NE(unasked.line.find("remote storage not asked: TARGET_GPU NVIDIA H200 names no one GPU's results there (a "
                              "GPU's id does: 'kernelblaster gpu info' prints it on that GPU); "),
            std::string::npos)
      << unasked.line;
}

}  // namespace
}  // namespace kernelblaster::build_step
