#include "judge/candidate_build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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
