#include "judge/candidate_build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

// An nvcc that cannot be started is the toolchain's fault: the outcome says
// so first, and does not pass the failure off as the source's compile error.
TEST(BuildHarness, NvccThatCannotRunIsNamedAsSuch) {
  fs::path dir = fs::temp_directory_path() / ("kb-build-" + std::to_string(::getpid()));
  Toolchain tc{"/nonexistent/bin/nvcc", "/nonexistent/include", "/nonexistent/lib/libkernelblaster_harness.a",
               "/nonexistent/lib64"};
  BuildOutcome b = build_harness(tc, {}, "h.cu", "k.cu", dir.string(), 30);
  fs::remove_all(dir);
  EXPECT_FALSE(b.ok);
  EXPECT_TRUE(b.nvcc_unusable);
  EXPECT_EQ(b.failure, Status::tool_error);  // what a loop judges it: says nothing about the candidate
  EXPECT_EQ(b.first_error.rfind("nvcc could not be run (/nonexistent/bin/nvcc: ", 0), 0u) << b.first_error;
}

TEST(BuildHarness, ACompileErrorIsTheSourcesFault) {
  fs::path dir = fs::temp_directory_path() / ("kb-build-src-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // A stand-in compiler that runs and reports an error, as nvcc would.
  fs::path fake = dir / "nvcc";
  {
    FILE* f = std::fopen(fake.c_str(), "w");
    std::fputs("#!/bin/sh\necho 'k.cu(3): error: identifier \"x\" is undefined'\nexit 1\n", f);
    std::fclose(f);
  }
  fs::permissions(fake, fs::perms::owner_all);
  Toolchain tc{fake.string(), "/i", "/l/libkernelblaster_harness.a", "/l64"};
  BuildOutcome b = build_harness(tc, {}, "h.cu", "k.cu", (dir / "scratch").string(), 30);
  fs::remove_all(dir);
  EXPECT_FALSE(b.ok);
  EXPECT_FALSE(b.nvcc_unusable);
  EXPECT_EQ(b.failure, Status::compile_failed);
  EXPECT_NE(b.first_error.find("identifier \"x\" is undefined"), std::string::npos) << b.first_error;
}

// A stand-in nvcc that logs each command line and makes what -o names;
// compiling a file named bad.cu fails as nvcc would, and compiling h.cu
// takes a moment (so concurrent builds overlap).
fs::path logging_nvcc(const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path fake = dir / "nvcc";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "echo \"$*\" >> " << (dir / "log").string() << "\n"
                         "case \"$*\" in *bad.cu*) echo 'bad.cu(1): error: this harness does not compile'; exit 1;; esac\n"
                         "case \"$*\" in *'-c '*h.cu*) sleep 0.2;; esac\n"
                         "while [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then : > \"$2\"; fi; shift; done\n";
  fs::permissions(fake, fs::perms::owner_all);
  return fake;
}

std::vector<std::string> log_lines(const fs::path& dir) {
  std::vector<std::string> lines;
  std::ifstream in(dir / "log");
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int count_with(const std::vector<std::string>& lines, const std::string& part) {
  return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                        [&](const std::string& l) { return l.find(part) != std::string::npos; }));
}

// A scratch directory with the logging nvcc, a harness, a source and the run's harness objects.
struct LoggedBuilds {
  LoggedBuilds(const std::string& name, const std::string& harness_name)
      : dir(fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()))),
        harness((dir / harness_name).string()),
        source((dir / "k.cu").string()),
        objects((dir / "objects").string()) {
    fs::remove_all(dir);
    tc = {logging_nvcc(dir).string(), "/i", "/l/libkernelblaster_harness.a", "/l64"};
    std::ofstream(harness) << "// the harness\n";
    std::ofstream(source) << "// the source\n";
  }
  ~LoggedBuilds() { fs::remove_all(dir); }
  BuildOutcome build(const CompileSettings& cs, const std::string& scratch) {
    return build_harness(tc, cs, harness, source, (dir / scratch).string(), 30, &objects);
  }
  fs::path dir;
  Toolchain tc;
  std::string harness, source;
  HarnessObjects objects;
};

TEST(HarnessObjects, TheHarnessIsCompiledOnceForEachSetOfOptions) {
  LoggedBuilds run("kb-harness-objects", "h.cu");
  const fs::path& dir = run.dir;
  CompileSettings plain, fast;
  fast.flags = {"-use_fast_math"};
  std::vector<std::thread> builds;
  std::vector<BuildOutcome> outcomes(4);
  for (int i = 0; i < 4; ++i)
    builds.emplace_back([&, i] { outcomes[i] = run.build(i == 3 ? fast : plain, "c" + std::to_string(i)); });
  for (std::thread& t : builds) t.join();
  for (const BuildOutcome& b : outcomes) EXPECT_TRUE(b.ok) << b.first_error;
  const std::vector<std::string> lines = log_lines(dir);
  // Three builds with one set of options share one compile of the harness; the fourth's flag makes another.
  EXPECT_EQ(count_with(lines, "-c " + (dir / "h.cu").string()), 2) << ::testing::PrintToString(lines);
  EXPECT_EQ(count_with(lines, "-c " + (dir / "k.cu").string()), 4);
  // Each links the shared object with its own, as the one-command build links them.
  const int links = count_with(lines, "/harness.o ");
  EXPECT_EQ(links, 4);
  EXPECT_EQ(count_with(lines, "kernel.o /l/libkernelblaster_harness.a -L/l64 -lcupti -ldl"), 4);
  EXPECT_TRUE(fs::exists(outcomes[0].binary));
}

TEST(HarnessObjects, AHarnessThatDoesNotCompileFailsEachBuildWithItsError) {
  LoggedBuilds run("kb-harness-objects-bad", "bad.cu");
  for (const char* scratch : {"c0", "c1"}) {
    BuildOutcome b = run.build({}, scratch);
    EXPECT_FALSE(b.ok);
    EXPECT_EQ(b.failure, Status::compile_failed);
    EXPECT_NE(b.first_error.find("this harness does not compile"), std::string::npos) << b.first_error;
  }
  EXPECT_EQ(count_with(log_lines(run.dir), "-c "), 1) << "compiled once, the source never";
}

// Issue 72: the original's harness object and program are kept in a
// store across runs of one content key. A second run with another scratch
// directory runs no nvcc for them; a changed harness or source is built
// again.
TEST(BuildStore, ASecondRunTakesTheOriginalsBuildsFromTheStore) {
  LoggedBuilds run("kb-build-store", "h.cu");
  const BuildStore store((run.dir / "store").string(), (run.dir / "run1").string());
  HarnessObjects objects1((run.dir / "run1" / "objects").string(), &store);
  BuildOutcome b = build_harness(run.tc, {}, run.harness, run.source, (run.dir / "run1" / "ref").string(), 30,
                                 &objects1, &store);
  ASSERT_TRUE(b.ok) << b.first_error;
  const int compiles = count_with(log_lines(run.dir), "-c ");
  EXPECT_EQ(compiles, 2);  // the harness and the source
  const BuildStore again((run.dir / "store").string(), (run.dir / "run2").string());
  HarnessObjects objects2((run.dir / "run2" / "objects").string(), &again);
  b = build_harness(run.tc, {}, run.harness, run.source, (run.dir / "run2" / "ref").string(), 30, &objects2, &again);
  ASSERT_TRUE(b.ok) << b.first_error;
  EXPECT_TRUE(fs::exists(b.binary));
  EXPECT_EQ(count_with(log_lines(run.dir), "-c "), compiles) << "nothing compiled again";
  // A candidate's build takes the kept harness object: only its source compiles.
  b = build_harness(run.tc, {}, run.harness, run.source, (run.dir / "run2" / "cand").string(), 30, &objects2);
  ASSERT_TRUE(b.ok) << b.first_error;
  EXPECT_EQ(count_with(log_lines(run.dir), "-c " + run.harness), 1);
  // A changed source is another program.
  std::ofstream(run.source) << "// the source, edited\n";
  const BuildStore third((run.dir / "store").string(), (run.dir / "run3").string());
  b = build_harness(run.tc, {}, run.harness, run.source, (run.dir / "run3" / "ref").string(), 30, nullptr, &third);
  ASSERT_TRUE(b.ok) << b.first_error;
  EXPECT_GT(count_with(log_lines(run.dir), run.source), 2);
}

}  // namespace
}  // namespace kernelblaster

// The toolkit libraries a source's includes name are linked into its
// harness, as the user's target links them: a launcher file whose other
// functions call cuBLAS (SGEMM_CUDA's runner.cu) builds.
TEST(CandidateBuild, ToolkitLibrariesFollowTheIncludes) {
  const fs::path dir = fs::temp_directory_path() / "kb_toolkit_libraries";
  fs::create_directories(dir / "inc");
  std::ofstream(dir / "k.cu") << "#include \"runner.cuh\"\n#include <cstdio>\n__global__ void k() {}\n";
  std::ofstream(dir / "runner.cuh") << "#pragma once\n#include <cublas_v2.h>\n#include \"more.h\"\n";
  std::ofstream(dir / "inc" / "more.h") << "  #include <curand.h>\n// #include <cufft.h> is a comment\n";
  EXPECT_EQ(kernelblaster::toolkit_libraries((dir / "k.cu").string(), {(dir / "inc").string()}),
            (std::vector<std::string>{"-lcublas", "-lcurand"}));
  EXPECT_EQ(kernelblaster::toolkit_libraries((dir / "k.cu").string(), {}), (std::vector<std::string>{"-lcublas"}));
  std::ofstream(dir / "plain.cu") << "__global__ void k() {}\n";
  EXPECT_TRUE(kernelblaster::toolkit_libraries((dir / "plain.cu").string(), {}).empty());
  fs::remove_all(dir);
}

// A harness links what the original's settings name, never what a
// candidate's own includes would add: a candidate cannot pull cuFFT in.
TEST(CandidateBuild, TheLinkLineTakesTheOriginalsLibrariesOnly) {
  const fs::path dir = fs::temp_directory_path() / "kb_link_line";
  fs::create_directories(dir);
  std::ofstream(dir / "candidate.cu") << "#include <cufft.h>\n__global__ void k() {}\n";
  kernelblaster::CompileSettings cs;
  cs.libraries = {"-lcublas"};
  kernelblaster::Toolchain tc{"nvcc", "/inc", "/lib/libkernelblaster_harness.a", "/lib64"};
  const std::vector<std::string> cmd =
      kernelblaster::harness_build_command(tc, cs, "h.cu", (dir / "candidate.cu").string(), "out");
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "-lcublas"), cmd.end());
  EXPECT_EQ(std::find(cmd.begin(), cmd.end(), "-lcufft"), cmd.end());
  fs::remove_all(dir);
}
