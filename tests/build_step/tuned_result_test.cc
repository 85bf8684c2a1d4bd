#include "build_step/tuned_result.h"

#include <gtest/gtest.h>

namespace kernelblaster::build_step {
namespace {

const std::string kOriginal = "#include \"k.h\"\n__global__ void f() {}\n";

TEST(TunedResult, DefinesAreKeptAndRegeneratedExactly) {
  std::string tuned = "#define BLOCK_SIZE 128\n#define UNROLL 4\n#line 1 \"/gpu/machine/src/k.cu\"\n" + kOriginal;
  TunedResult r;
  r.improved = true;
  absorb_tuned_text(r, tuned, "/gpu/machine/src/k.cu", kOriginal);
  ASSERT_EQ(r.defines.size(), 2u);
  EXPECT_EQ(r.defines[0], (std::pair<std::string, std::string>{"BLOCK_SIZE", "128"}));
  EXPECT_TRUE(r.text.empty());
  // On another machine the #line names the local original.
  EXPECT_EQ(render_tuned(r, "/ci/src/k.cu", kOriginal),
            "#define BLOCK_SIZE 128\n#define UNROLL 4\n#line 1 \"/ci/src/k.cu\"\n" + kOriginal);
  EXPECT_EQ(render_tuned(r, "/gpu/machine/src/k.cu", kOriginal), tuned);
}

TEST(TunedResult, OtherTextsAreKeptWholeAndPortable) {
  std::string tuned = "#line 1 \"/gpu/src/k.cu\"\n__global__ void f() { /* rewritten */ }\n";
  TunedResult r;
  r.improved = true;
  absorb_tuned_text(r, tuned, "/gpu/src/k.cu", kOriginal);
  EXPECT_TRUE(r.defines.empty());
  EXPECT_EQ(r.text.find("/gpu/src"), std::string::npos);
  EXPECT_EQ(render_tuned(r, "/ci/k.cu", kOriginal), "#line 1 \"/ci/k.cu\"\n__global__ void f() { /* rewritten */ }\n");
}

TEST(TunedResult, NotImprovedRendersTheOriginal) {
  TunedResult r;
  r.improved = false;
  r.defines = {{"X", "1"}};
  EXPECT_EQ(render_tuned(r, "/a/k.cu", kOriginal), "#line 1 \"/a/k.cu\"\n" + kOriginal);
}

TEST(TunedResult, Describe) {
  TunedResult r;
  r.speedup = 1.414;
  r.defines = {{"BLOCK_SIZE", "128"}};
  r.flags = {"-use_fast_math"};
  EXPECT_EQ(describe(r), "1.41x, BLOCK_SIZE=128, -use_fast_math");
}

TEST(TunedResult, TheLineNamesOnlyWhatChangedAndTheKernelsItMoved) {
  TunedResult r;
  r.speedup = 1.076;
  r.config = {{"K5_BK", "32"}, {"K5_TM", "16"}, {"K10_BM", "128"}, {"K10_BN", "128"}};
  r.original = {{"K5_BK", "8"}, {"K5_TM", "8"}, {"K10_BM", "128"}, {"K10_BN", "128"}};
  r.flags = {"-use_fast_math"};
  r.kernels = {{"sgemm2DBlocktiling", 1.283}, {"sgemmWarptiling", 1.004}, {"sgemmVectorize", 0.995},
               {"sgemm1DBlocktiling", 0.97}};
  EXPECT_EQ(changed_settings(r), (std::vector<std::string>{"K5_BK=32", "K5_TM=16"}));
  EXPECT_EQ(describe_change(r),
            "1.08x, K5_BK=32, K5_TM=16, -use_fast_math; sgemm1DBlocktiling 0.97x, sgemm2DBlocktiling 1.28x, "
            "2 other kernels unchanged");
  // The report and the lockfile keep the whole configuration.
  EXPECT_EQ(describe(r), "1.08x, K10_BM=128, K10_BN=128, K5_BK=32, K5_TM=16, -use_fast_math");
  // A result that does not know the source's values names every setting.
  r.original.clear();
  r.kernels.clear();
  EXPECT_EQ(describe_change(r), describe(r));
}

TEST(TunedResult, WhatARestrictAssumesIsSaid) {
  TunedResult r;
  r.speedup = 1.2;
  r.config = {{"KERNELBLASTER_RESTRICT_copy", "1"}, {"KERNELBLASTER_RESTRICT_scale", "0"}, {"TILE", "16"}};
  EXPECT_EQ(assumptions(r), "assumes the buffers of copy never overlap, as in every recorded launch");
  // A rewrite left off is the code as written: the line does not name it.
  EXPECT_EQ(describe(r), "1.20x, KERNELBLASTER_RESTRICT_copy=1, TILE=16 (" + assumptions(r) + ")");
  r.config["KERNELBLASTER_UNROLL_body"] = "0";
  r.config["KERNELBLASTER_MIN_BLOCKS_copy"] = "2";
  EXPECT_EQ(settings_text(r), (std::vector<std::string>{"KERNELBLASTER_MIN_BLOCKS_copy=2", "KERNELBLASTER_RESTRICT_copy=1",
                                                        "TILE=16"}));
  r.config["KERNELBLASTER_RESTRICT_copy"] = "0";
  EXPECT_EQ(assumptions(r), "");
}

TEST(TunedResult, LineDirectiveQuotes) { EXPECT_EQ(line_directive_path("a\"b\\c"), "\"a\\\"b\\\\c\""); }

}  // namespace
}  // namespace kernelblaster::build_step

namespace kernelblaster::build_step {
namespace {

TEST(TunedResult, UndefBeforeRedefineIsKeptExactly) {
  const std::string original = "__global__ void g() {}\n";
  std::string tuned = "#undef BLOCK\n#define BLOCK 64\n#line 1 \"/gpu/k.cu\"\n" + original;
  TunedResult r;
  r.improved = true;
  absorb_tuned_text(r, tuned, "/gpu/k.cu", original);
  EXPECT_TRUE(r.text.empty());
  EXPECT_EQ(r.prelude, "#undef BLOCK\n#define BLOCK 64\n");
  ASSERT_EQ(r.defines.size(), 1u);
  EXPECT_EQ(describe(r).find("BLOCK=64"), 7u);
  EXPECT_EQ(render_tuned(r, "/ci/k.cu", original), "#undef BLOCK\n#define BLOCK 64\n#line 1 \"/ci/k.cu\"\n" + original);
}

}  // namespace
}  // namespace kernelblaster::build_step
