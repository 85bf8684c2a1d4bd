#include "tuner/discovery.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/flag_space.h"
#include "common/source_lines.h"

using namespace kernelblaster::tuner;
namespace fs = std::filesystem;

namespace {

Discovery discover(const std::string& text) { return discover_tunables(text, "k.cu", parse_directives(text, "k.cu", "sm_90")); }

const Tunable* find(const Discovery& d, const std::string& name) {
  for (const Tunable& t : d.tunables)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> names(const Discovery& d) {
  std::vector<std::string> out;
  for (const Tunable& t : d.tunables) out.push_back(t.name);
  return out;
}

// The library a new user brings (issue 13): one macro, one launch.
const char* kScaleShift = R"(#include <cstddef>
#ifndef THREADS
#define THREADS 128
#endif

__global__ void scale_shift_kernel(const float* x, float* y, float a, float b, std::size_t n) {
  std::size_t i = blockIdx.x * (std::size_t)THREADS + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

void scale_shift(const float* x, float* y, float a, float b, std::size_t n) {
  scale_shift_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, y, a, b, n);
}
)";

}  // namespace

TEST(Discovery, AnIfndefMacroInALaunchIsABlockSize) {
  Discovery d = discover(kScaleShift);
  ASSERT_EQ(names(d), std::vector<std::string>{"THREADS"});
  const Tunable& t = d.tunables[0];
  EXPECT_EQ(t.default_value, "128");
  EXPECT_EQ(t.values, (std::vector<std::string>{"128", "32", "64", "256", "512", "1024"}));
  EXPECT_EQ(t.technique, "block_size_adaptation");
  EXPECT_EQ(t.origin, "k.cu:3 (discovered: block size)");
  EXPECT_EQ(d.summary, std::vector<std::string>{"THREADS (block size: 32..1024)"});
  EXPECT_TRUE(d.constraints.empty());
}

TEST(Discovery, ATwoDimensionalBlockGetsTheHardwareLimit) {
  Discovery d = discover(R"(
#ifndef TILE
#define TILE 16
#endif
__global__ void t(const float* in, float* out, int n) {}
void launch(const float* in, float* out, int n) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  t<<<grid, block>>>(in, out, n);
}
)");
  const Tunable* t = find(d, "TILE");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->values, (std::vector<std::string>{"16", "4", "8", "32"}));
  ASSERT_EQ(d.constraints.size(), 1u);
  EXPECT_EQ(d.constraints[0].text(), "(TILE) * (TILE) <= 1024");
  EXPECT_TRUE(d.constraints[0].holds({{"TILE", 32}}));
  EXPECT_FALSE(d.constraints[0].holds({{"TILE", 64}}));
}

TEST(Discovery, ALocalThatTheLaunchNamesIsFollowed) {
  Discovery d = discover(R"(
#ifndef BLOCK
#  define BLOCK 256u  // threads
#endif
void launch(float* y, int n) {
  const int threads = BLOCK;
  int blocks = (n + threads - 1) / threads;
  k<<<blocks, threads, 0, 0>>>(y, n);
}
)");
  const Tunable* t = find(d, "BLOCK");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->default_value, "256");
  EXPECT_EQ(t->origin, "k.cu:3 (discovered: block size)");
}

TEST(Discovery, LoopTripCountsAndGridFactorsAreScaled) {
  Discovery d = discover(R"(
#ifndef ITEMS
#define ITEMS 4
#endif
#ifndef UNROLL
#define UNROLL 8
#endif
__global__ void k(float* y, int n) {
  for (int i = 0; i < ITEMS; ++i) y[i] = 0;
#pragma unroll UNROLL
  for (int j = 0; j < n; ++j) y[j] += 1;
}
)");
  const Tunable* items = find(d, "ITEMS");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->values, (std::vector<std::string>{"4", "1", "2", "8", "16"}));
  EXPECT_EQ(items->origin, "k.cu:3 (discovered: loop trip count)");
  const Tunable* unroll = find(d, "UNROLL");
  ASSERT_NE(unroll, nullptr);
  EXPECT_EQ(unroll->technique, "loop_unrolling");
  EXPECT_EQ(unroll->values, (std::vector<std::string>{"8", "2", "4", "16", "32"}));
}

TEST(Discovery, ABlockMadeOfTwoMacrosIsLimitedTogether) {
  Discovery d = discover(R"(
#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
void launch(float* y) { k<<<dim3(4, 4), dim3(BX, BY)>>>(y); }
)");
  ASSERT_EQ(names(d), (std::vector<std::string>{"BX", "BY"}));
  ASSERT_EQ(d.constraints.size(), 1u);
  EXPECT_EQ(d.constraints[0].text(), "(BX) * (BY) <= 1024");
}

TEST(Discovery, WhatIsNotALaunchOrLoopShapeIsLeftAlone) {
  Discovery d = discover(R"(
#ifndef EPS_SCALE
#define EPS_SCALE 3
#endif
#define UNGUARDED 256
#ifndef NAME
#define NAME "text"
#endif
#ifndef NEGATIVE
#define NEGATIVE -1
#endif
#ifndef IN_COMMENT
#define IN_COMMENT 64
#endif
#ifndef WARP_SIZE
#define WARP_SIZE 32
#endif
// k<<<1, IN_COMMENT>>>();
const char* s = "k<<<1, IN_COMMENT>>>";
__global__ void k(float* y) { y[0] = EPS_SCALE * 2.0f; }
void launch(float* y) {
  k<<<1, UNGUARDED>>>(y);
  for (int i = 0; i < UNGUARDED; ++i) {}
  for (int o = WARP_SIZE / 2; o > 0; o /= 2) {}
  k<<<1, 4 * WARP_SIZE>>>(y);
}
)");
  EXPECT_TRUE(d.tunables.empty()) << d.tunables.size();
}

TEST(Discovery, DirectivesWinAndDiscoverOffStopsIt) {
  std::string both = R"(// kernelblaster: tunable BLOCK_SIZE 64 128
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 128
#endif
#ifndef ITEMS
#define ITEMS 2
#endif
__global__ void k(float* y) { for (int i = 0; i < ITEMS; ++i) y[i] = 0; }
void launch(float* y) { k<<<1, BLOCK_SIZE>>>(y); }
)";
  SpaceDecl decl = parse_directives(both, "k.cu", "sm_90");
  Discovery added = add_discovered_space(decl, both, "k.cu");
  EXPECT_EQ(names(added), std::vector<std::string>{"ITEMS"});
  ASSERT_EQ(decl.tunables.size(), 2u);
  EXPECT_EQ(decl.tunables[0].values, (std::vector<std::string>{"64", "128"}));  // the directive's, untouched

  std::string off = "// kernelblaster: discover off\n" + both;
  SpaceDecl quiet = parse_directives(off, "k.cu", "sm_90");
  EXPECT_FALSE(quiet.discover);
  EXPECT_TRUE(add_discovered_space(quiet, off, "k.cu").tunables.empty());
  EXPECT_EQ(quiet.tunables.size(), 1u);
}

TEST(Discovery, TheOriginalKeepsTheDiscoveredDefault) {
  SpaceDecl decl = parse_directives(kScaleShift, "k.cu", "sm_90");
  add_discovered_space(decl, kScaleShift, "k.cu");
  ConfigSpace space = enumerate_space(decl, {});
  EXPECT_EQ(space.original.values.at("THREADS"), "128");
  ASSERT_EQ(space.configs.size(), 5u);  // the other five block sizes
}

TEST(Discovery, CodeOnlyBlanksCommentsAndLiteralsButKeepsOffsets) {
  std::string text = "a // b\nc /* d\ne */ f \"g\\\"h\" 'i' j";
  std::string code = kernelblaster::code_only(text);
  ASSERT_EQ(code.size(), text.size());
  EXPECT_EQ(code, "a     \nc     \n     f \"    \" ' ' j");
}

// The examples declare every macro they want tuned: discovery adds nothing,
// so their tuning is what their directives say.
TEST(Discovery, TheExamplesNeedNoDiscovery) {
  for (const auto& e : fs::directory_iterator(std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src")) {
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    Discovery d = discover_tunables(ss.str(), e.path().string(), parse_directives(ss.str(), "x", "sm_90"));
    EXPECT_TRUE(d.tunables.empty()) << e.path() << ": " << (d.summary.empty() ? "" : d.summary[0]);
  }
}

// Sources nobody here wrote: every init.cu of the published KernelBench-CUDA
// dataset, where it is present. Discovery never throws, every default is
// among its values, and every constraint holds for the defaults.
TEST(Discovery, HoldsOnThePublishedDataset) {
  std::string root;
  const char* env = std::getenv("KERNELBLASTER_KERNELBENCH_DATA");
  for (std::string d : {std::string(env ? env : ""), std::string(KERNELBLASTER_SOURCE_DIR "/../shared/kernelbench-cuda"),
                        std::string(KERNELBLASTER_SOURCE_DIR "/.kb-data/kernelbench-cuda")})
    if (!d.empty() && fs::is_directory(d + "/level1")) {
      root = d;
      break;
    }
  if (root.empty()) GTEST_SKIP() << "the KernelBench-CUDA dataset is not here";
  int files = 0, with_tunables = 0, with_literal_blocks = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename() != "init.cu") continue;
    ++files;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    SpaceDecl decl;
    ASSERT_NO_THROW(decl = parse_directives(ss.str(), e.path().string(), "sm_90")) << e.path();
    Discovery d = add_discovered_space(decl, ss.str(), e.path().string());
    PreparedSource prepared = prepare_literal_blocks(ss.str(), e.path().string(), decl);
    with_tunables += !d.tunables.empty();
    with_literal_blocks += !prepared.tunables.empty();
    // Each replaced literal leaves its macro in the copy, once defined.
    for (const Tunable& t : prepared.tunables)
      EXPECT_NE(prepared.text.find("#define " + t.name + " " + t.default_value + "\n"), std::string::npos);
    std::map<std::string, long long> defaults;
    for (const Tunable& t : d.tunables) {
      EXPECT_NE(std::find(t.values.begin(), t.values.end(), t.default_value), t.values.end()) << e.path();
      EXPECT_GE(t.values.size(), 2u) << e.path() << " " << t.name;
      defaults[t.name] = std::stoll(t.default_value);
    }
    for (const Constraint& c : d.constraints) EXPECT_TRUE(c.holds(defaults)) << e.path() << ": " << c.text();
    ConfigSpace space = enumerate_space(decl, {});
    if (!d.tunables.empty()) EXPECT_GE(space.configs.size(), 2u) << e.path();
  }
  EXPECT_EQ(files, 184);
  std::cout << "[ discovery ] " << with_tunables << " of " << files << " init.cu files have #ifndef tunables, "
            << with_literal_blocks << " literal block sizes\n";
}

TEST(LiteralBlocks, ALiteralBlockAndItsGridBecomeOneMacro) {
  std::string src = "__global__ void k(float* y, int n) {}\nvoid launch(float* y, int n) {\n"
                    "  k<<<(n + 255) / 256, 256>>>(y, n);  // 256 threads\n}\n";
  PreparedSource p = prepare_literal_blocks(src, "/src/k.cu", parse_directives(src, "k.cu", "sm_90"));
  ASSERT_EQ(p.tunables.size(), 1u);
  EXPECT_EQ(p.tunables[0].name, "KERNELBLASTER_BLOCK_L3");
  EXPECT_EQ(p.tunables[0].default_value, "256");
  EXPECT_EQ(p.tunables[0].origin, "/src/k.cu:3 (discovered: literal block size)");
  EXPECT_EQ(p.text, "#ifndef KERNELBLASTER_BLOCK_L3\n#define KERNELBLASTER_BLOCK_L3 256\n#endif\n#line 1 \"/src/k.cu\"\n"
                    "__global__ void k(float* y, int n) {}\nvoid launch(float* y, int n) {\n"
                    "  k<<<(n + (KERNELBLASTER_BLOCK_L3 - 1)) / KERNELBLASTER_BLOCK_L3, KERNELBLASTER_BLOCK_L3>>>(y, n);  // 256 threads\n}\n");
  EXPECT_EQ(p.summary, std::vector<std::string>{"KERNELBLASTER_BLOCK_L3 (literal block size 256: 32..1024)"});
}

TEST(LiteralBlocks, AVariableTheLaunchNamesIsReplacedWhereItIsSet) {
  std::string src = "void launch(float* y, int n) {\n  const int threads = 128;\n"
                    "  int blocks = (n + threads - 1) / threads;\n  k<<<blocks, threads>>>(y, n);\n"
                    "  k2<<<blocks, threads, 0, 0>>>(y, n);\n}\n";
  PreparedSource p = prepare_literal_blocks(src, "/src/k.cu", parse_directives(src, "k.cu", "sm_90"));
  ASSERT_EQ(p.tunables.size(), 1u);  // both launches name the same variable
  EXPECT_NE(p.text.find("  const int threads = KERNELBLASTER_BLOCK_L2;\n"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("(n + threads - 1) / threads"), std::string::npos);
}

TEST(LiteralBlocks, LiteralsTheKernelDependsOnAreLeftAlone) {
  for (std::string src : {
           std::string("__global__ void k(float* y) { __shared__ float s[256]; }\nvoid l(float* y) { k<<<1, 256>>>(y); }\n"),
           std::string("void l(float* y) { k<<<1, 100>>>(y); k<<<1, 2048>>>(y); }\n"),
           std::string("void l(float* y, int t) { int threads = 256; if (t) threads = 512; k<<<1, threads>>>(y); }\n"),
           std::string("// k<<<1, 256>>>(y);\nvoid l(float* y) {}\n"),
       }) {
    PreparedSource p = prepare_literal_blocks(src, "k.cu", parse_directives(src, "k.cu", "sm_90"));
    EXPECT_TRUE(p.tunables.empty()) << src;
    EXPECT_EQ(p.text, src);
  }
  std::string off = "// kernelblaster: discover off\nvoid l(float* y) { k<<<1, 256>>>(y); }\n";
  EXPECT_TRUE(prepare_literal_blocks(off, "k.cu", parse_directives(off, "k.cu", "sm_90")).tunables.empty());
}

// Issue 72: a kernel's __launch_bounds__, wherever it is declared (here, or
// in a header the source includes), bounds its block: no value above it is
// in the space, the smaller ones are.
TEST(LiteralBlocks, TheKernelsLaunchBoundsCapTheBlock) {
  const std::string here = "__global__ void __launch_bounds__(256) k(float* y) {}\nvoid l(float* y) { k<<<1, 256>>>(y); }\n";
  PreparedSource p = prepare_literal_blocks(here, "k.cu", parse_directives(here, "k.cu", "sm_90"));
  ASSERT_EQ(p.tunables.size(), 1u);
  EXPECT_EQ(p.tunables[0].values, (std::vector<std::string>{"256", "32", "64", "128"}));
  const fs::path dir = fs::temp_directory_path() / ("kb_launch_bounds_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "k.h") << "#pragma once\n#define THREADS 128\n"
                                "__global__ void __launch_bounds__(THREADS) price(float* y, int n);\n";
  const std::string src = "#include \"k.h\"\n__global__ void price(float* y, int n) { y[threadIdx.x] = n; }\n"
                          "int main() { float* y; cudaMalloc(&y, 4096); price<<<32, 128>>>(y, 1); }\n";
  std::ofstream(dir / "k.cu") << src;
  p = prepare_literal_blocks(src, (dir / "k.cu").string(), parse_directives(src, "k.cu", "sm_90"));
  fs::remove_all(dir);
  ASSERT_EQ(p.tunables.size(), 2u);  // the block, and the grid-stride count of blocks
  EXPECT_EQ(p.tunables[0].name, "KERNELBLASTER_BLOCK_L3");
  EXPECT_EQ(p.tunables[0].values, (std::vector<std::string>{"128", "32", "64"}));
  EXPECT_EQ(p.tunables[1].name, "KERNELBLASTER_GRID_L3");
  EXPECT_EQ(p.tunables[1].values, (std::vector<std::string>{"32", "8", "16", "64", "128"}));
  EXPECT_NE(p.text.find("price<<<KERNELBLASTER_GRID_L3, KERNELBLASTER_BLOCK_L3>>>"), std::string::npos) << p.text;
}

// A grid that divides by a multiple of the literal block (`n / 512` beside
// a block of 256) moves with it, so the grid keeps its threads.
TEST(LiteralBlocks, AGridDividingByAMultipleOfTheBlockMovesWithIt) {
  const std::string src = "__global__ void merge(unsigned* k, unsigned s) {}\n"
                          "void sort(unsigned* k, unsigned n) {\n"
                          "  merge<<<n / 512, 256>>>(k, 1);\n  merge<<<(n + 1023) / 1024, 256>>>(k, 2);\n}\n";
  PreparedSource p = prepare_literal_blocks(src, "k.cu", parse_directives(src, "k.cu", "sm_90"));
  ASSERT_GE(p.tunables.size(), 1u);
  EXPECT_NE(p.text.find("merge<<<n / (2 * KERNELBLASTER_BLOCK_L3), KERNELBLASTER_BLOCK_L3>>>"), std::string::npos)
      << p.text;
  EXPECT_NE(p.text.find("merge<<<(n + (4 * KERNELBLASTER_BLOCK_L4 - 1)) / (4 * KERNELBLASTER_BLOCK_L4), "
                        "KERNELBLASTER_BLOCK_L4>>>"),
            std::string::npos)
      << p.text;
}

namespace kernelblaster::tuner {
namespace {

PreparedSource prepared(const std::string& src) {
  return prepare_literal_blocks(src, "/src/k.cu", parse_directives(src, "k.cu", "sm_90"));
}

// Issue 27: `<<<grid, 128>>>` with `dim3 grid((width + 127) / 128)` was
// offered at 32 and 64 with the grid left as it was, so two thirds of the
// candidates could never write the whole output. The grid moves with it.
TEST(LiteralBlocks, AGridSetInAVariableMovesWithTheBlock) {
  std::string src = "__global__ void k(float* y, int w) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
                    "if (i < w) y[i] = 0; }\n"
                    "void launch(float* y, int width) {\n  dim3 grid((width + 127) / 128, 4);\n"
                    "  k<<<grid, 128>>>(y, width);\n}\n";
  PreparedSource p = prepared(src);
  ASSERT_EQ(p.tunables.size(), 1u);
  EXPECT_NE(p.text.find("dim3 grid((width + (KERNELBLASTER_BLOCK_L4 - 1)) / KERNELBLASTER_BLOCK_L4, 4);"),
            std::string::npos) << p.text;
  EXPECT_NE(p.text.find("k<<<grid, KERNELBLASTER_BLOCK_L4>>>"), std::string::npos) << p.text;
  // A count of blocks set once and scaled in the launch: followed one level.
  std::string scaled = "void launch(float* y, int n) {\n  int blocks = (n + 255) / 256;\n"
                       "  k<<<blocks * 2, 256>>>(y, n);\n}\n";
  p = prepared(scaled);
  ASSERT_EQ(p.tunables.size(), 1u);
  EXPECT_NE(p.text.find("int blocks = (n + (KERNELBLASTER_BLOCK_L3 - 1)) / KERNELBLASTER_BLOCK_L3;"), std::string::npos)
      << p.text;
}

TEST(LiteralBlocks, AKernelThatSpellsTheBlockSizeOutMovesWithIt) {
  std::string src = "__global__ void k(float* y, int n) {\n  int i = blockIdx.x * 256 + threadIdx.x;\n"
                    "  if (i < n) y[i] = 1;\n}\nvoid launch(float* y, int n) { k<<<(n + 255) / 256, 256>>>(y, n); }\n";
  PreparedSource p = prepared(src);
  ASSERT_EQ(p.tunables.size(), 1u);
  EXPECT_NE(p.text.find("int i = blockIdx.x * KERNELBLASTER_BLOCK_L5 + threadIdx.x;"), std::string::npos) << p.text;
}

// What cannot be moved with the block leaves the literal alone: the block
// size is then not offered at all.
TEST(LiteralBlocks, LinksThatCannotBeReadKeepTheLiteral) {
  for (std::string src : {
           // the kernel uses the number otherwise (a stride)
           std::string("__global__ void k(float* y, int n) { for (int i = threadIdx.x; i < n; i += 256) y[i] = 0; }\n"
                       "void l(float* y, int n) { k<<<1, 256>>>(y, n); }\n"),
           // and its mask
           std::string("__global__ void k(float* y) { y[threadIdx.x & 255] = 0; }\nvoid l(float* y) { k<<<1, 256>>>(y); }\n"),
           // a grid passed in: its size is not in this file
           std::string("void l(float* y, int blocks) { k<<<blocks, 256>>>(y); }\n"),
           // a grid set in two places
           std::string("void l(float* y, int n, bool big) { int g = (n + 255) / 256; if (big) g = n / 256; "
                       "k<<<g, 256>>>(y); }\n"),
       }) {
    PreparedSource p = prepared(src);
    EXPECT_TRUE(p.tunables.empty()) << src;
    EXPECT_EQ(p.text, src);
  }
  // A grid that does not depend on the block (a grid-stride kernel) is fine.
  std::string stride = "void l(float* y, int sms) { k<<<sms * 4, 256>>>(y); }\n";
  EXPECT_EQ(prepared(stride).tunables.size(), 1u);
}

}  // namespace
}  // namespace kernelblaster::tuner

// A guarded macro in a project header the source includes is a tunable as
// one in the source is: a candidate's #define above the text wins over the
// header's #ifndef, and the header stays as it is (issue 72: the CMake
// test project's BLOCK_SIZE lives in detail.cuh). A header's macro that no
// launch of the source reads is not one; a system include is not read.
TEST(Discovery, AGuardedMacroInAProjectHeaderIsATunableByItsPartInTheSourcesLaunch) {
  const fs::path dir = fs::temp_directory_path() / ("kb_header_guarded_" + std::to_string(::getpid()));
  fs::create_directories(dir / "inc");
  std::ofstream(dir / "detail.cuh") << "#pragma once\n#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 256\n#endif\n"
                                       "#ifndef UNUSED_KNOB\n#define UNUSED_KNOB 64\n#endif\n";
  std::ofstream(dir / "inc" / "more.h") << "#ifndef MORE_H\n#define MORE_H\n#ifndef ITEMS\n#define ITEMS 4\n#endif\n#endif\n";
  const std::string text =
      "#include \"detail.cuh\"\n#include \"more.h\"\n#include <cuda_runtime.h>\n"
      "__global__ void k(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  for (int j = 0; j < ITEMS; ++j) if (i * ITEMS + j < n) x[i * ITEMS + j] = 0; }\n"
      "void run(float* x, int n) { k<<<(n + BLOCK_SIZE * ITEMS - 1) / (BLOCK_SIZE * ITEMS), BLOCK_SIZE>>>(x, n); }\n";
  const std::string file = (dir / "k.cu").string();
  const Discovery d = discover_tunables(text, file, parse_directives(text, file, "sm_90"), {(dir / "inc").string()});
  const Tunable* block = find(d, "BLOCK_SIZE");
  ASSERT_NE(block, nullptr) << ::testing::PrintToString(names(d));
  EXPECT_EQ(block->default_value, "256");
  EXPECT_EQ(block->origin, (dir / "detail.cuh").string() + ":3 (discovered: block size)");
  ASSERT_NE(find(d, "ITEMS"), nullptr) << ::testing::PrintToString(names(d));  // through an include directory
  EXPECT_EQ(find(d, "UNUSED_KNOB"), nullptr);
  EXPECT_EQ(find(d, "MORE_H"), nullptr);  // an include guard has no value
  // Without the include directory, more.h is not found and ITEMS is not offered.
  EXPECT_EQ(find(discover_tunables(text, file, parse_directives(text, file, "sm_90")), "ITEMS"), nullptr);
  fs::remove_all(dir);
}
