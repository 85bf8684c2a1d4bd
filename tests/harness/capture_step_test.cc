// The build step of a source with no harness (harness/capture_step.h):
// recorded lines gathered per launcher, the harness synthesized from this
// source's most-recorded launcher, else the recording shim.
#include "harness/capture_step.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/capture_gather.h"
#include "harness/launcher_scan.h"

namespace fs = std::filesystem;
using namespace kernelblaster::harness;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

nlohmann::json launcher(const std::string& name, const std::string& n_type = "int", int line = 2) {
  return {{"name", name}, {"namespaces", nlohmann::json::array()}, {"return_type", "void"}, {"extern_c", false},
          {"line", line},
          {"params", {{{"name", "x"}, {"type", "const float *"}, {"kind", "buffer"}, {"element", "f32"}},
                      {{"name", "y"}, {"type", "float *"}, {"kind", "buffer"}, {"writable", true}, {"element", "f32"}},
                      {{"name", "n"}, {"type", n_type}, {"kind", "dim"}}}}};
}

// One recorded line as the runtime writes it; elements < 0: a buffer
// outside device memory (no extent).
std::string line(const std::string& source, const std::string& name, long long n, const std::string& n_type = "int",
                 int at = 2) {
  nlohmann::json x = n < 0 ? nlohmann::json::object() : nlohmann::json{{"elements", n}, {"written", false}};
  nlohmann::json j = {{"source", source}, {"launcher", launcher(name, n_type, at)},
                      {"args", {x, {{"elements", n < 0 ? 1 : n}, {"written", true}}, {{"value", std::to_string(n)}}}}};
  return j.dump() + "\n";
}

class CaptureStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kb-capture-step-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                       "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    source = (dir / "two.cu").string();
    std::ofstream(source) << "__global__ void k(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i]; }\n"
                             "void first(const float* x, float* y, int n) { k<<<1, 32>>>(x, y, n); }\n"
                             "void second(const float* x, float* y, int n) { k<<<1, 32>>>(x, y, n); }\n";
    step.source = source;
    step.harness = (dir / "gen" / "harness" / "two_harness.cu").string();
    step.lines = (dir / "gen" / "capture" / "two.calls.jsonl").string();
    step.runtime_dir = (dir / "gen" / "runtime").string();
  }
  void TearDown() override { fs::remove_all(dir); }
  void record(const std::string& text) {
    fs::create_directories(fs::path(step.lines).parent_path());
    std::ofstream(step.lines, std::ios::app) << text;
  }
  fs::path dir;
  std::string source;
  CaptureStep step;
};

}  // namespace

TEST_F(CaptureStepTest, GathersByLauncherAndCountsWhatItLeavesOut) {
  record(line(source, "first", 100) + line(source, "first", 7) + line(source, "second", 50) +
         line("/elsewhere/other.cu", "first", 9) + "not json\n" + line(source, "second", -1));
  Gathered g = gather_recorded_calls(step.lines);
  ASSERT_EQ(g.captures.size(), 3u);
  EXPECT_EQ(g.unreadable, 1);
  EXPECT_EQ(g.left_out, 1);
  std::size_t first_calls = 0;
  for (const Capture& c : g.captures)
    if (c.launcher.name == "first" && c.source == source) first_calls = c.calls.size();
  EXPECT_EQ(first_calls, 2u);
  EXPECT_EQ(capture_file_name(g.captures.front()), "other.first.capture.json");
}

// A launcher name that is no identifier (a line break in it) is refused in
// one line that quotes it (fuzz.recorded_calls, 2026-11-30).
TEST_F(CaptureStepTest, ARefusedLauncherNameIsQuotedOnOneLine) {
  record(line(source, "sca\nle", 100));
  Gathered g = gather_recorded_calls(step.lines);
  ASSERT_EQ(g.errors.size(), 1u);
  EXPECT_EQ(g.errors[0].find('\n'), std::string::npos) << g.errors[0];
  EXPECT_NE(g.errors[0].find("'sca\\nle'"), std::string::npos) << g.errors[0];
  EXPECT_NE(g.errors[0].find("not a C identifier"), std::string::npos) << g.errors[0];
}

// Every launcher of the source that was recorded runs in the one harness
// (a tuning changes the whole file); another source's launchers do not.
TEST_F(CaptureStepTest, SynthesizesOneHarnessForEveryRecordedLauncherOfThisSource) {
  record(line(source, "second", 64) + line(source, "first", 100) + line(source, "first", 7) +
         line("/elsewhere/other.cu", "third", 1) + line("/elsewhere/other.cu", "third", 2) +
         line("/elsewhere/other.cu", "third", 3));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  if (have_parser()) {
    EXPECT_TRUE(has(o.note, "harness synthesized from 3 recorded calls of first, second")) << o.note;
  } else {
    EXPECT_TRUE(has(o.note, "harness synthesized from 3 recorded calls of")) << o.note;
  }
  EXPECT_TRUE(o.unverified.empty());
  const std::string harness = slurp(step.harness);
  EXPECT_TRUE(has(harness, "first(")) << harness;
  EXPECT_TRUE(has(harness, "second(")) << harness;
  EXPECT_FALSE(has(harness, "third(")) << harness;
  EXPECT_TRUE(has(harness, "first_n")) << harness;
  EXPECT_TRUE(o.shim_text.empty());
}

// A kernel that only a launcher no recorded call reached launches is named,
// with the launcher: it would change unverified.
TEST_F(CaptureStepTest, AKernelOnlyANeverCalledLauncherRunsIsNamed) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  std::ofstream(source) << "__global__ void k(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i]; }\n"
                           "__global__ void k2(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = -x[i]; }\n"
                           "void first(const float* x, float* y, int n) { k<<<1, 32>>>(x, y, n); }\n"
                           "void second(const float* x, float* y, int n) { k2<<<1, 32>>>(x, y, n); }\n";
  record(line(source, "first", 100));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_EQ(o.unverified, std::vector<std::string>{"k2"});
  EXPECT_EQ(o.unverified_kind, "kernel");
  EXPECT_TRUE(has(o.unverified_why, "second was never called")) << o.unverified_why;
}

// A launcher never called whose kernels another recorded launcher runs
// leaves nothing unverified: what is verified is kernels, not functions.
TEST_F(CaptureStepTest, ANeverCalledLauncherWhoseKernelsRunElsewhereLeavesNothingUnverified) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  record(line(source, "first", 100));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_TRUE(o.unverified.empty()) << o.unverified_why;
}

// What the scan takes for a launcher (issue 27, an SGEMM project): a host
// function that launches a kernel itself or through the file's functions
// and templates; not a helper that prints, not a wrapper of a library call.
// A handle (pointer to an incomplete struct) and a stream reference are
// no buffers, and a standard type past the CUDA headers' host-pass errors
// is read as itself.
TEST_F(CaptureStepTest, LaunchersAreFunctionsThatReachAKernel) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  std::ofstream(source) << "#include <fstream>\n"
                           "struct Ctx; typedef Ctx* handle_t;\n"
                           "void library_gemm(handle_t h, float* c);\n"
                           "template <int BS> __global__ void tiled(const float* a, float* c, int n) { c[threadIdx.x] = a[threadIdx.x] * BS; }\n"
                           "__global__ void naive(const float* a, float* c, int n) { c[threadIdx.x] = a[threadIdx.x]; }\n"
                           "template <int BS> void run_tiled(const float* a, float* c, int n) { tiled<BS><<<n / BS, BS>>>(a, c, n); }\n"
                           "void print_matrix(const float* a, int n, std::ofstream& fs) { for (int i = 0; i < n; ++i) fs << a[i]; }\n"
                           "void run_library(handle_t h, float* c) { library_gemm(h, c); }\n"
                           "static void run_naive(const float* a, float* c, int n) { naive<<<1, n>>>(a, c, n); }\n"
                           "void run_kernel(int which, const float* a, float* c, int n, handle_t h) {\n"
                           "  if (which == 0) run_library(h, c); else if (which == 1) run_naive(a, c, n); else run_tiled<32>(a, c, n);\n"
                           "}\n"
                           "void run_fast(const float* a, float* c, int n) { run_tiled<64>(a, c, n); }\n";
  SourceScan scan = scan_source(source, {});
  std::vector<std::string> names;
  for (const Launcher& l : scan.launchers) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"run_kernel", "run_fast"}));
  // library_gemm, declared only (defined in another file or a library), is no candidate at all.
  EXPECT_EQ(scan.helpers, (std::vector<std::string>{"print_matrix", "run_library"}));
  ASSERT_EQ(scan.launchers.size(), 2u);
  EXPECT_EQ(scan.launchers[0].kernels, (std::vector<std::string>{"naive", "tiled"}));
  EXPECT_EQ(scan.launchers[1].kernels, (std::vector<std::string>{"tiled"}));
  EXPECT_EQ(scan.launchers[0].params[4].kind, ParamKind::other);  // the handle
}

// A source whose every launcher takes something a recording cannot give
// (a library handle) records nothing and says why.
TEST_F(CaptureStepTest, LaunchersTakingAHandleGiveNoRecordingAndSayWhy) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  std::ofstream(source) << "struct Ctx; typedef Ctx* handle_t;\n"
                           "__global__ void k(const float* x, float* y, int n) { y[threadIdx.x] = x[threadIdx.x]; }\n"
                           "void run(handle_t h, const float* x, float* y, int n) { k<<<1, n>>>(x, y, n); }\n";
  CaptureOutcome o = prepare_capture_step(step);
  EXPECT_EQ(o.state, CaptureOutcome::State::unavailable);
  EXPECT_TRUE(has(o.note, "run takes handle_t h")) << o.note;
  EXPECT_TRUE(o.shim_text.empty());
}

TEST_F(CaptureStepTest, DryRunWritesNothing) {
  record(line(source, "first", 100));
  step.dry_run = true;
  CaptureOutcome o = prepare_capture_step(step);
  EXPECT_EQ(o.state, CaptureOutcome::State::harness_ready);
  EXPECT_FALSE(fs::exists(step.harness));
}

// The shim records only where the environment names the file
// (kernelblaster_generated/record, ctest: issue 72): it compiles no path in.
TEST_F(CaptureStepTest, WithoutRecordedCallsTheShimRecordsOnlyWhereTheEnvironmentSays) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  record("garbage\n");
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::recording) << o.note;
  EXPECT_TRUE(has(o.note, "recording the calls of first, second into " + step.lines)) << o.note;
  EXPECT_FALSE(has(o.shim_text, "KERNELBLASTER_CAPTURE_DEFAULT_FILE"));
  EXPECT_FALSE(has(o.shim_text, fs::path(step.lines).parent_path().string()));
  EXPECT_TRUE(has(o.shim_text, "nullptr);"));  // Call's default file: none
  EXPECT_TRUE(has(o.shim_text, "kb_capture_original_first"));
  // The shim holds the source (definitions renamed in place): its own
  // directory for its quoted includes.
  EXPECT_TRUE(has(o.shim_text, "void kb_capture_original_first(const float* x")) << o.shim_text;
  ASSERT_EQ(o.shim_flags.size(), 2u);
  EXPECT_EQ(o.shim_flags[0], "-I" + fs::absolute(step.runtime_dir).lexically_normal().string());
  EXPECT_EQ(o.shim_flags[1], "-I" + dir.string());
  EXPECT_TRUE(has(slurp(fs::path(step.runtime_dir) / "kernelblaster" / "capture.h"), "KERNELBLASTER_CAPTURE_DIR"));
  step.name = "lib/two";  // the CMake module's: a name under KERNELBLASTER_CAPTURE_DIR, no path
  EXPECT_TRUE(has(prepare_capture_step(step).shim_text, "#define KERNELBLASTER_CAPTURE_NAME \"lib/two\""));
  EXPECT_FALSE(fs::exists(step.harness));
}

TEST_F(CaptureStepTest, ASourceWithNoLauncherIsOneLineAndNoShim) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  std::ofstream(source, std::ios::trunc) << "__global__ void k(float* y) { y[0] = 1; }\n";
  CaptureOutcome o = prepare_capture_step(step);
  EXPECT_EQ(o.state, CaptureOutcome::State::unavailable);
  EXPECT_EQ(o.note, "no harness, and no host launcher to record (a function that launches the kernels)");
  EXPECT_TRUE(o.shim_text.empty());
}

TEST_F(CaptureStepTest, CallsOfAnEarlierSignatureAreIgnoredAndMovedLinesMerge) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  // `first` once took a long (the source changed since); its calls cannot
  // drive it now. Recordings from before and after a line moved are one launcher.
  record(line(source, "first", 100, "long") + line(source, "first", 200, "long") + line(source, "first", 300, "long"));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::recording) << o.note;
  EXPECT_TRUE(has(o.note, "(3 recorded calls of an earlier signature ignored)")) << o.note;
  record(line(source, "first", 64, "int", 2) + line(source, "first", 9, "int", 5));
  o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_TRUE(has(o.note, "harness synthesized from 2 recorded calls of first (3 recorded calls of an earlier "
                          "signature ignored)")) << o.note;
}


namespace {

// Calls recorded where the program ran without a GPU carry no extents: the
// line must say they give no harness and why, not promise one.
TEST_F(CaptureStepTest, CallsRecordedWithoutAGpuAreSaidToGiveNoHarness) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  record(line(source, "first", -1) + line(source, "first", -1));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::recording) << o.note;
  EXPECT_TRUE(has(o.next, "the 2 calls recorded so far passed buffers that are not device memory")) << o.next;
  EXPECT_TRUE(has(o.next, "on a machine with a GPU")) << o.next;
  // Another source's unusable calls say nothing about this one.
  std::ofstream(step.lines, std::ios::trunc) << line((dir / "other.cu").string(), "first", -1);
  EXPECT_EQ(prepare_capture_step(step).next, "");
}

}  // namespace
