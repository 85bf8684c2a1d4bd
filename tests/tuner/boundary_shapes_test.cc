// The shapes at the edges of a launcher's branches (tuner/boundary_shapes.h),
// on a launcher shaped like SGEMM_CUDA's: it picks its tile by the sizes it
// is given, and its recorded calls are 128 to 4096.
#include "tuner/boundary_shapes.h"

#include <gtest/gtest.h>

#include "run_harness.h"
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tuner/harness_reading.h"

using namespace kernelblaster::tuner;

namespace {

const char* kSource =
    "template <int BM> __global__ void k(int M, float *C) { C[blockIdx.x * BM + threadIdx.x] = BM; }\n"
    "// if (M >= 999) in a comment is no branch\n"
    "void run(int M, int N, float *C) {\n"
    "  if (M >= 128 and N >= 128) {\n"
    "    k<128><<<dim3(M / 128), dim3(128)>>>(M, C);\n"
    "  } else if (32 < M) {\n"
    "    k<32><<<dim3(M / 32), dim3(32)>>>(M, C);\n"
    "  } else {\n"
    "    k<16><<<dim3(M / 16), dim3(16)>>>(M, C);\n"
    "  }\n"
    "}\n"
    "void other(int M, float *C) { if (M > 7) k<16><<<1, 16>>>(M, C); }\n";

std::string harness(const std::string& sizes) { return run_harness(sizes); }

const std::string kRecorded = harness(
    ".size(\"call1\", {{\"M\", 4096}, {\"N\", 4096}, {\"C_elements\", 16777216}})\n"
    "      .validation_size(\"call0\", {{\"M\", 128}, {\"N\", 256}, {\"C_elements\", 16777216}})");

}  // namespace

// `M >= 128` gives 128 (recorded already) and 127, from the recorded size
// nearest above it; `N >= 128` gives 128 (from N = 256, moved down) and 127;
// `32 < M` gives 33 and 32. A function the harness does not call gives none.
TEST(BoundaryShapes, BothSidesOfEachEdgeFromTheNearestRecordedSizeAbove) {
  const std::vector<BoundaryShape> s = boundary_shapes(kRecorded, kSource);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].label(), "edge-M-127");
  EXPECT_EQ(s[0].dims, (std::map<std::string, long long>{{"M", 127}, {"N", 256}, {"C_elements", 16777216}}));
  EXPECT_EQ(s[0].why, "M >= 128 in run");
  EXPECT_EQ(s[1].label(), "edge-N-128");
  EXPECT_EQ(s[1].dims.at("M"), 128);
  EXPECT_EQ(s[2].label(), "edge-N-127");
  EXPECT_EQ(s[3].label(), "edge-M-33");
  EXPECT_EQ(s[3].why, "M > 32 in run");
  EXPECT_EQ(s[4].label(), "edge-M-32");
  for (const BoundaryShape& b : s) EXPECT_EQ(b.dims.at("C_elements"), 16777216) << b.label();  // buffers as recorded
}

// Never moved up: with every recorded M under the edge, nothing is added
// for it (a buffer recorded for a smaller call could be too small).
TEST(BoundaryShapes, ASizeIsNeverMovedUp) {
  const std::string small = harness(".size(\"call0\", {{\"M\", 16}, {\"N\", 16}, {\"C_elements\", 256}})");
  for (const BoundaryShape& b : boundary_shapes(small, kSource)) EXPECT_LE(b.dims.at("M"), 16) << b.label();
  EXPECT_TRUE(boundary_shapes(small, kSource).empty());
}

TEST(BoundaryShapes, AtMostTheCap) { EXPECT_EQ(boundary_shapes(kRecorded, kSource, 2).size(), 2u); }

// For a check at the edges alone: the same harness with only the shapes as
// its sizes (timed sizes, the first in the place of the recorded first).
TEST(BoundaryShapes, AHarnessOfTheEdgesAlone) {
  const std::vector<BoundaryShape> s = boundary_shapes(kRecorded, kSource);
  const std::string text = edges_only_harness(kRecorded, s);
  const std::vector<HarnessSize> sizes = labelled_harness_sizes(text);
  ASSERT_EQ(sizes.size(), s.size()) << text;
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(sizes[i].label, s[i].label());
  EXPECT_EQ(text.find("call0"), std::string::npos) << text;
  EXPECT_EQ(text.find("call1"), std::string::npos) << text;
  EXPECT_NE(text.find("  h// the edge of M >= 128 in run\n      .size(\"edge-M-127\", "), std::string::npos) << text;
  EXPECT_NE(text.find("})\n      .inout(\"C\""), std::string::npos) << text;
  EXPECT_EQ(edges_only_harness(kRecorded, {}), "");
}

// The harness of the edges compiles as it is written (nvcc, the public harness header).
TEST(BoundaryShapes, TheEdgesHarnessCompiles) {
  const std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "no nvcc";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kb-edges-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<BoundaryShape> s = boundary_shapes(kRecorded, kSource);
  std::ofstream((dir / "only.cu").string()) << edges_only_harness(kRecorded, s);
  const std::string cmd = nvcc + " -std=c++17 -c -o " + (dir / "only.o").string() + " " + (dir / "only.cu").string() +
                          " -I" KERNELBLASTER_SOURCE_DIR "/tool/include 2>" + (dir / "only.log").string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << std::ifstream((dir / "only.log").string()).rdbuf();
  std::filesystem::remove_all(dir);
}
