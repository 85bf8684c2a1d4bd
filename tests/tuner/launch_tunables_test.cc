#include "tuner/launch_tunables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "cubin.h"
#include "tuner/candidate_source.h"
#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/launch_reading.h"
#include "tuner/source_space.h"
#include "tuner/tune_listing.h"

using namespace kernelblaster::tuner;
namespace fs = std::filesystem;

namespace {

// A launcher written as tiled GEMM tutorials write them: const locals feed
// the template arguments and the dim3s, static_asserts state what must hold,
// and the launch differs by a branch on the problem size.
const char* kTiledLauncher = R"(#include <cuda_runtime.h>
#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

template <int TILE_M, int TILE_N, int STEP_K, int PER_THREAD>
__global__ void tiled(int m, int n, int k, const float* a, const float* b, float* c) {
  __shared__ float sa[TILE_M * STEP_K];
  __shared__ float sb[STEP_K * TILE_N];
  static_assert(TILE_M % PER_THREAD == 0, "rows split evenly");
  int row = blockIdx.y * TILE_M + threadIdx.x * PER_THREAD;
  int col = blockIdx.x * TILE_N;
  if (row < m && col < n) c[row * n + col] = a[row] + b[col] + sa[0] + sb[0];
}

void launch_tiled(int m, int n, int k, const float* a, const float* b, float* c) {
  const int STEP_K = 8;
  const unsigned PER_THREAD = 4;
  if (m >= 128) {
    const int TILE_M = 64;
    const int TILE_N = 64;
    static_assert((TILE_M * TILE_N) / PER_THREAD <= 1024 * 64, "fits");
    dim3 grid(DIV_UP(n, TILE_N), DIV_UP(m, TILE_M));
    dim3 block(TILE_M / PER_THREAD);
    tiled<TILE_M, TILE_N, STEP_K, PER_THREAD><<<grid, block>>>(m, n, k, a, b, c);
  } else {
    const int TILE_M = 32;
    const int TILE_N = 32;
    dim3 grid(DIV_UP(n, TILE_N), DIV_UP(m, TILE_M));
    dim3 block(TILE_M / PER_THREAD);
    tiled<TILE_M, TILE_N, STEP_K, PER_THREAD><<<grid, block>>>(m, n, k, a, b, c);
  }
}

void launch_small(int m, float* c) {
  const int unused_here = 7;
  c[0] = unused_here;
  tiled<16, 16, 4, 2><<<dim3(DIV_UP(m, 16)), dim3(16 / 2)>>>(m, m, m, c, c, c);
}
)";

// A sample written with plain #defines, a 2-D block and asserts in the launcher.
const char* kDefinesSample = R"(#include <assert.h>
#include <cuda_runtime.h>

#define STRIP_X 16
#define STRIP_Y 4
#define STEPS 8
#define WARP_SIZE 32
#define RADIUS 2

__global__ void strips(float* out, const float* in, int w, int h) {
  __shared__ float tile[STRIP_Y][STEPS * STRIP_X + 2 * RADIUS];
  const int x = (blockIdx.x * STEPS) * STRIP_X + threadIdx.x;
  const int y = blockIdx.y * STRIP_Y + threadIdx.y;
  for (int s = 0; s < STEPS; ++s) tile[threadIdx.y][s * STRIP_X + threadIdx.x] = in[y * w + x + s * STRIP_X];
  __syncthreads(); if (threadIdx.x % WARP_SIZE == 99) out[0] = 0;
  for (int s = 0; s < STEPS; ++s) out[y * w + x + s * STRIP_X] = tile[threadIdx.y][s * STRIP_X + threadIdx.x];
}

void run_strips(float* out, const float* in, int w, int h) {
  assert(STRIP_X >= RADIUS);
  assert(w % (STEPS * STRIP_X) == 0);
  dim3 blocks(w / (STEPS * STRIP_X), h / STRIP_Y);
  dim3 threads(STRIP_X, STRIP_Y);
  strips<<<blocks, threads>>>(out, in, w, h);
}
)";

LaunchTunables find(const std::string& text, const std::vector<std::string>& include_dirs = {}) {
  return find_launch_tunables(text, "/src/k.cu", parse_directives(text, "/src/k.cu", "sm_90"), include_dirs);
}

const FoundTunable* named(const LaunchTunables& l, const std::string& written_as, int line = 0) {
  for (const FoundTunable& t : l.tunables)
    if (t.written_as == written_as && (line == 0 || t.line == line)) return &t;
  return nullptr;
}

bool has_constraint(const LaunchSite& s, const std::string& piece) {
  return std::any_of(s.constraints.begin(), s.constraints.end(),
                     [&](const std::string& c) { return c.find(piece) != std::string::npos; });
}

}  // namespace

TEST(LaunchTunables, ConstLocalsThatShapeALaunchAreFoundPerSite) {
  LaunchTunables l = find(kTiledLauncher);
  ASSERT_EQ(l.sites.size(), 3u);
  // Both branches read STEP_K and PER_THREAD, declared above them: each
  // branch gets its own, named at its opening line; each has its own tiles.
  const FoundTunable* big_step = named(l, "STEP_K", 17);
  const FoundTunable* small_step = named(l, "STEP_K", 24);
  const FoundTunable* per = named(l, "PER_THREAD", 17);
  const FoundTunable* big_m = named(l, "TILE_M", 18);
  const FoundTunable* small_m = named(l, "TILE_M", 25);
  ASSERT_TRUE(big_step && small_step && per && big_m && small_m);
  EXPECT_EQ(big_step->tunable.name, "KERNELBLASTER_STEP_K_L17");
  EXPECT_EQ(small_step->tunable.name, "KERNELBLASTER_STEP_K_L24");
  EXPECT_EQ(big_step->kind, "constant");
  EXPECT_EQ(big_step->tunable.default_value, "8");
  EXPECT_EQ(big_m->tunable.default_value, "64");
  EXPECT_EQ(small_m->tunable.default_value, "32");
  // The original's value is always among the values, first.
  EXPECT_EQ(big_m->tunable.values.front(), "64");
  const LaunchSite& big = l.sites[0];
  const LaunchSite& small = l.sites[1];
  EXPECT_EQ(big.function, "launch_tiled");
  EXPECT_EQ(big.kernel, "tiled");
  auto has = [](const LaunchSite& s, const FoundTunable* t) {
    return std::find(s.tunables.begin(), s.tunables.end(), t->tunable.name) != s.tunables.end();
  };
  EXPECT_TRUE(has(big, big_m) && has(big, big_step) && has(big, per));
  EXPECT_FALSE(has(big, small_m) || has(big, small_step));
  EXPECT_TRUE(has(small, small_m) && has(small, small_step));
  // Sites that share no tunable are groups of their own.
  EXPECT_NE(big.group, small.group);
  EXPECT_NE(l.sites[2].group, big.group);
  // A local that never reaches a launch is not a tunable.
  EXPECT_EQ(named(l, "unused_here"), nullptr);
}

// The branches' own declarations shadow the original at each branch's top,
// on the line of its `{`, and the original declaration stays as written:
// a launch no harness size reaches keeps the author's value while its
// sibling is tuned (SGEMM_CUDA's launchers, issue 38).
TEST(LaunchTunables, EachBranchDeclaresItsOwnCopyOfASharedConstant) {
  LaunchTunables l = find(kTiledLauncher);
  EXPECT_NE(l.text.find("  const int STEP_K = 8;\n  const unsigned PER_THREAD = 4;\n"
                        "  if (m >= 128) { const int STEP_K = KERNELBLASTER_STEP_K_L17;"),
            std::string::npos) << l.text;
  EXPECT_NE(l.text.find("const unsigned PER_THREAD = KERNELBLASTER_PER_THREAD_L17;"), std::string::npos);
  EXPECT_NE(l.text.find("} else { const int STEP_K = KERNELBLASTER_STEP_K_L24;"), std::string::npos) << l.text;
  // The lines stay where they were: the branch's declarations share its line.
  auto count_lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
  const std::size_t body = l.text.find("#include <cuda_runtime.h>");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(count_lines(l.text.substr(body)), count_lines(kTiledLauncher));
  // Each site's constraints read its own copy: the big tile's static_assert.
  EXPECT_TRUE(has_constraint(l.sites[0], "KERNELBLASTER_PER_THREAD_L17"));
  EXPECT_FALSE(has_constraint(l.sites[1], "KERNELBLASTER_PER_THREAD_L17"));
}

// `name`, declared at `line`, is one tunable for the first two sites, in
// one group, its declaration's literal replaced in place.
void expect_one_shared(const LaunchTunables& l, const std::string& name, int line) {
  const FoundTunable* t = named(l, name);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->line, line);
  EXPECT_EQ(l.sites[0].group, l.sites[1].group);
  EXPECT_NE(l.text.find("const int " + name + " = " + t->tunable.name + ";"), std::string::npos) << l.text;
}

// A use of the constant outside the branches (a block both launch with, a
// check above them) ties the launches together: one tunable, one group.
TEST(LaunchTunables, AUseOutsideTheBranchesKeepsOneSharedConstant) {
  const std::string text = R"(template <int B> __global__ void k(float* c) { c[threadIdx.x] = B; }
void run(int n, float* c) {
  const int B = 128;
  dim3 block(B);
  if (n > 4096) {
    k<B><<<n / B, block>>>(c);
  } else {
    k<B><<<n / B + 1, block>>>(c);
  }
}
void other(int n, float* c) {
  const int T = 64;
  if (n > 4096) {
    k<T><<<n / T, T>>>(c);
  } else {
    const int T = 32;
    k<T><<<n / T, T>>>(c);
  }
}
)";
  LaunchTunables l = find(text);
  ASSERT_EQ(l.sites.size(), 4u);
  expect_one_shared(l, "B", 3);
  // `T` declared again inside the second branch: the outer T reaches only
  // the first launch, so nothing is split and nothing shadows twice.
  const FoundTunable* outer_t = named(l, "T", 12);
  ASSERT_TRUE(outer_t);
  EXPECT_EQ(l.text.find("{ const int T ="), std::string::npos) << l.text;
}

// A file-scope constant read by launches in two classes' member functions:
// a declaration at the top of a class body would be a data member, so the
// constant stays one tunable; two free functions each get their own.
TEST(LaunchTunables, OnlyABlockOfStatementsGetsItsOwnCopy) {
  const std::string text = R"(template <int B> __global__ void k(float* c) { c[threadIdx.x] = B; }
const int BLOCK = 128;
struct First {
  void run(float* c) { k<BLOCK><<<1, BLOCK>>>(c); }
};
struct Second {
  void run(float* c) { k<BLOCK><<<2, BLOCK>>>(c); }
};
)";
  LaunchTunables l = find(text);
  ASSERT_EQ(l.sites.size(), 2u);
  expect_one_shared(l, "BLOCK", 2);
  const std::string free_functions = R"(template <int B> __global__ void k(float* c) { c[threadIdx.x] = B; }
const int BLOCK = 128;
void first(float* c) { k<BLOCK><<<1, BLOCK>>>(c); }
void second(float* c) { k<BLOCK><<<2, BLOCK>>>(c); }
)";
  l = find(free_functions);
  EXPECT_TRUE(named(l, "BLOCK", 3) && named(l, "BLOCK", 4)) << l.text;
  EXPECT_NE(l.text.find("void first(float* c) { const int BLOCK = KERNELBLASTER_BLOCK_L3;"), std::string::npos)
      << l.text;
}

TEST(LaunchTunables, TheCopyNamesEachLiteralOnceAndKeepsTheDefaults) {
  LaunchTunables l = find(kTiledLauncher);
  const FoundTunable* big_m = named(l, "TILE_M", 18);
  ASSERT_TRUE(big_m);
  EXPECT_NE(l.text.find("#ifndef " + big_m->tunable.name + "\n#define " + big_m->tunable.name + " 64\n#endif\n"),
            std::string::npos);
  EXPECT_NE(l.text.find("const int TILE_M = " + big_m->tunable.name + ";"), std::string::npos);
  // The body follows a #line back to the user's file, so messages keep their lines.
  EXPECT_NE(l.text.find(line_directive("/src/k.cu") + "#include <cuda_runtime.h>"), std::string::npos);
  // The template arguments written as literals: one macro each, with the
  // equal literals of the launch's grid and block.
  const FoundTunable* t0 = nullptr;
  for (const FoundTunable& t : l.tunables)
    if (t.kind == "template argument" && t.tunable.default_value == "16") t0 = &t;
  ASSERT_TRUE(t0);
  const FoundTunable* t3 = nullptr;
  for (const FoundTunable& t : l.tunables)
    if (t.kind == "template argument" && t.tunable.default_value == "2") t3 = &t;
  ASSERT_TRUE(t3);
  const std::string a = t0->tunable.name, d = t3->tunable.name;
  EXPECT_NE(l.text.find("<" + a + ", " + a + ", "), std::string::npos) << l.text;
  EXPECT_NE(l.text.find(d + "><<<dim3(DIV_UP(m, " + a + ")), dim3(" + a + " / " + d + ")>>>"), std::string::npos)
      << l.text;
}

TEST(LaunchTunables, ConstraintsComeFromTheCodeAndTheKernelTemplate) {
  LaunchTunables l = find(kTiledLauncher);
  const LaunchSite& big = l.sites[0];
  const std::string m = named(l, "TILE_M", 18)->tunable.name, per = named(l, "PER_THREAD")->tunable.name;
  // The launcher's own static_assert, with the names as macros.
  EXPECT_TRUE(has_constraint(big, "(" + m + " * " + named(l, "TILE_N", 19)->tunable.name + ") / " + per + " <= 1024 * 64"))
      << ::testing::PrintToString(big.constraints);
  // The kernel's static_assert with its template parameters replaced by the launch's arguments.
  EXPECT_TRUE(has_constraint(big, "(" + m + ") % (" + per + ") == 0")) << ::testing::PrintToString(big.constraints);
  // The static shared memory of the instantiation.
  EXPECT_TRUE(has_constraint(big, "<= 49152")) << ::testing::PrintToString(big.constraints);
  // Every constraint holds for the code as written.
  std::map<std::string, long long> defaults;
  for (const FoundTunable& t : l.tunables) defaults[t.tunable.name] = std::stoll(t.tunable.default_value);
  for (const Constraint& c : l.constraints) EXPECT_TRUE(c.holds(defaults)) << c.text();
}

TEST(LaunchReading, SharedBytesCountObjectsBesideArrays) {
  // SGEMM_CUDA's kernel 12: two block barriers beside the tiles; at 48 KiB
  // of tiles ptxas refuses it (0xc010 bytes).
  const std::string body =
      "{ __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> front;\n"
      "  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> back;\n"
      "  __shared__ float As[2 * BM * BK];\n  __shared__ float Bs[2 * BK * BN];\n  __shared__ int count; }";
  EXPECT_EQ(reading::shared_bytes(body), "8 + 8 + 4 * (2 * BM * BK) + 4 * (2 * BK * BN) + 4");
  // An object of a type it does not know is left out; an array of one leaves no bound.
  EXPECT_EQ(reading::shared_bytes("{ __shared__ Opaque o; __shared__ float t[64]; }"), "4 * (64)");
  EXPECT_EQ(reading::shared_bytes("{ __shared__ Opaque o[4]; __shared__ float t[64]; }"), "");
  EXPECT_EQ(reading::shared_bytes("{ extern __shared__ float dyn[]; __shared__ float t[64]; }"), "4 * (64)");
}

TEST(LaunchTunables, AKernelTemplateInAHeaderIsRead) {
  const fs::path dir = fs::temp_directory_path() / "kb_launch_tunables_header";
  fs::create_directories(dir / "inc");
  std::string text = kTiledLauncher;
  const std::size_t kernel_begin = text.find("template <int TILE_M");
  const std::size_t kernel_end = text.find("void launch_tiled");
  std::ofstream(dir / "inc" / "tiled.cuh") << text.substr(kernel_begin, kernel_end - kernel_begin);
  text = text.substr(0, kernel_begin) + "#include \"tiled.cuh\"\n" + text.substr(kernel_end);
  LaunchTunables l = find(text, {(dir / "inc").string()});
  EXPECT_TRUE(has_constraint(l.sites[0], "<= 49152")) << ::testing::PrintToString(l.sites[0].constraints);
  // Without the include directory the kernel is not found, and nothing is assumed of it.
  LaunchTunables blind = find(text);
  EXPECT_FALSE(has_constraint(blind.sites[0], "<= 49152"));
  fs::remove_all(dir);
}

TEST(LaunchTunables, PlainDefinesGoUnderIfndefInPlace) {
  LaunchTunables l = find(kDefinesSample);
  ASSERT_TRUE(named(l, "STRIP_X") && named(l, "STRIP_Y") && named(l, "STEPS"));
  EXPECT_EQ(named(l, "STRIP_X")->tunable.name, "STRIP_X");  // a macro keeps its name
  EXPECT_EQ(named(l, "WARP_SIZE"), nullptr);                // a fact of the hardware
  // In place, a #line restoring the numbering of the lines that follow.
  EXPECT_NE(l.text.find("#ifndef STRIP_X\n#define STRIP_X 16\n#endif\n#line 5 \"/src/k.cu\"\n#ifndef STRIP_Y\n"),
            std::string::npos)
      << l.text;
  ASSERT_EQ(l.sites.size(), 1u);
  const LaunchSite& s = l.sites[0];
  EXPECT_TRUE(has_constraint(s, "STRIP_X >= RADIUS"));             // the assert that folds
  EXPECT_TRUE(has_constraint(s, "(STRIP_X) * (STRIP_Y) <= 1024"));  // the block's threads
  EXPECT_TRUE(has_constraint(s, "<= 49152"));                       // the tile
  // The assert that reads the image width is left to the run, and said so.
  ASSERT_FALSE(l.notes.empty());
  EXPECT_NE(l.notes.front().find("known only when it runs"), std::string::npos);
}

TEST(LaunchTunables, GuardedMacrosDirectivesAndDeviceConstantsAreLeftAlone) {
  const std::string text = R"(// kernelblaster: tunable BLOCK 64 128 256
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
__global__ void k(float* x) {
  const int local_unroll = 4;
  for (int i = 0; i < local_unroll; ++i) x[threadIdx.x * ITEMS + i] = 0;
}
void run(float* x, int n) { k<<<n / BLOCK, BLOCK>>>(x); }
)";
  LaunchTunables l = find(text);
  EXPECT_TRUE(l.tunables.empty());
  EXPECT_EQ(l.text, text);  // nothing found: the copy is the original
}

// A training exercise's matrix multiply (olcf/cuda-training-series hw2
// shape): `const int DSIZE` sizes the matrices and the grid; only the tile
// is the author's choice.
TEST(LaunchTunables, AValueTheHostSizesItsDataWithIsTheProblemNotATunable) {
  const std::string text = R"(#include <cuda_runtime.h>
#include <cstdlib>
#define ROWS 64
const int DSIZE = 4096;
const int block_size = 32;
__global__ void mmul(const float* a, const float* b, float* c, int ds) {
  __shared__ float as[block_size][block_size];
  c[threadIdx.x] = a[threadIdx.x] + b[threadIdx.y] + as[0][0] + ROWS;
}
int main() {
  float* h = new float[ROWS * 4];
  float *a, *b, *c;
  cudaMalloc(&a, DSIZE * DSIZE * sizeof(float));
  cudaMalloc(&b, DSIZE * DSIZE * sizeof(float));
  cudaMalloc(&c, DSIZE * DSIZE * sizeof(float));
  dim3 block(block_size, block_size);
  dim3 grid((DSIZE + block.x - 1) / block.x, (DSIZE + block.y - 1) / block.y);
  mmul<<<grid, block>>>(a, b, c, DSIZE);
  delete[] h;
}
)";
  LaunchTunables l = find(text);
  ASSERT_EQ(l.tunables.size(), 1u);
  EXPECT_NE(l.tunables[0].tunable.name.find("block_size"), std::string::npos);
  const std::string notes = [&] {
    std::string all;
    for (const std::string& n : l.notes) all += n + "\n";
    return all;
  }();
  EXPECT_NE(notes.find("DSIZE sizes the program's data (cudaMalloc at line 13): the problem's size, left as written"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("ROWS sizes the program's data (new[] at line 11)"), std::string::npos) << notes;
}

TEST(LaunchTunables, TheSpaceChangesOneGroupAtATime) {
  SourceSpace s = source_space({kTiledLauncher, "/src/k.cu", "sm_90", "", {}, {}});
  ConfigSpace space = enumerate_space(s.decl, {}, 0);
  // No configuration moves tunables of two groups.
  for (const Configuration& c : space.configs) {
    std::set<std::string> groups;
    for (const Setting& st : c.settings)
      for (const Tunable& t : s.decl.tunables)
        if (t.name == st.name) groups.insert(t.group);
    EXPECT_LE(groups.size(), 1u) << c.id;
  }
  // The union's size: each group's valid combinations, the original counted once.
  TuneListing listing = list_tunables({kTiledLauncher, "/src/k.cu", "sm_90", "", {}, {}});
  std::size_t sum = 1;
  for (const GroupCount& g : listing.groups) sum += g.valid - 1;
  EXPECT_EQ(listing.valid, sum);
  EXPECT_EQ(space.valid, sum);
  EXPECT_EQ(space.configs.size(), sum - 1);
  EXPECT_FALSE(space.capped);
}

TEST(LaunchTunables, TheListingSaysWhatWasFound) {
  TuneListing listing = list_tunables({kDefinesSample, "/src/k.cu", "sm_90", "", {}, {}});
  const std::string text = listing_text(listing);
  EXPECT_NE(text.find("run_strips, line 24: strips<<<...>>>"), std::string::npos) << text;
  EXPECT_NE(text.find("STRIP_X = 16  [define STRIP_X, line 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("whole space (one group changed at a time, before flags): "), std::string::npos) << text;
  const std::string json = listing_json(listing);
  EXPECT_NE(json.find("\"kind\": \"define\""), std::string::npos);
  EXPECT_NE(json.find("\"valid\": "), std::string::npos);
}

// The copy compiles to the same machine code as the original at the
// defaults, and to other code with another value: what the tuner relies on.
TEST(LaunchTunables, TheCopyCompilesToTheOriginalsCodeAtItsDefaults) {
  if (!fs::exists(test_support::kNvcc)) GTEST_SKIP() << "no nvcc";
  const fs::path dir = fs::temp_directory_path() / "kb_launch_tunables_sass";
  fs::create_directories(dir);
  const std::string original = (dir / "k.cu").string();
  std::ofstream(original) << kTiledLauncher;
  LaunchTunables l = find_launch_tunables(kTiledLauncher, original, {}, {});
  std::ofstream(dir / "copy.cu") << l.text;
  const std::string m = named(l, "TILE_M", 18)->tunable.name;
  std::ofstream(dir / "other.cu") << "#define " + m + " 128\n" + l.text;
  const std::string a = test_support::cubin_of(dir, "k"), b = test_support::cubin_of(dir, "copy"), c = test_support::cubin_of(dir, "other");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  fs::remove_all(dir);
}

// A literal that names the case of a run-time value (a switch over block
// sizes, `if (block_size == 16) ... else ...`) is the program's dispatch,
// not the author's choice: changing it would break the launch.
TEST(LaunchTunables, DispatchOnARunTimeValueIsNotTuned) {
  const std::string text = R"(template <int B> __global__ void k(float* c) { c[threadIdx.x] = B; }
void by_if(float* c, int block_size) {
  dim3 threads(block_size, block_size);
  if (block_size == 16) {
    k<16><<<1, threads>>>(c);
  } else {
    k<32><<<1, threads>>>(c);
  }
}
void by_switch(float* c, int threads) {
  switch (threads) {
    case 128:
      k<128><<<1, threads>>>(c);
      break;
    case 64:
      k<64><<<1, threads>>>(c);
      break;
  }
}
void chosen(float* c) { k<256><<<1, 256>>>(c); }
)";
  LaunchTunables l = find(text);
  ASSERT_EQ(l.tunables.size(), 1u);
  EXPECT_EQ(l.tunables[0].tunable.default_value, "256");
  EXPECT_EQ(l.notes.size(), 4u) << ::testing::PrintToString(l.notes);
  // The one choice moves the launch's block with it.
  EXPECT_NE(l.text.find("<<<1, " + l.tunables[0].tunable.name + ">>>"), std::string::npos) << l.text;
}

// With a harness that replays recorded launches only flags are searched;
// the constraints the tunables brought go with them (a constraint left
// reading a dropped tunable stopped the whole run: exit 2).
TEST(LaunchTunables, FlagsOnlyDropsTheConstraintsToo) {
  SourceSpace s = source_space({kDefinesSample, "/src/k.cu", "sm_90", "", {}, {}});
  ASSERT_FALSE(s.decl.constraints.empty());
  keep_tunables(s.decl, {});
  std::vector<FlagDimension> flags = {{"fast_math", "fast_math", {"", "-use_fast_math"}}};
  ConfigSpace space = enumerate_space(s.decl, flags);
  EXPECT_EQ(space.configs.size(), 1u);
}

// Names that stand for several names each: the text grows by a factor a
// round. Folding gives up past kMaxFoldedLength instead of running on (a
// fuzzed stencil took more than 10 s; tests/fuzz/regressions/source_scan).
TEST(LaunchReading, FoldingGivesUpOnTextThatGrowsEveryRound) {
  std::map<std::string, std::string> env = {{"A", "(B + B + B + B)"}, {"B", "(C * C * C * C)"}, {"C", "(D - D - D - D)"},
                                            {"D", "(E + E + E + E)"}, {"E", "(F * F * F * F)"}, {"F", "(2 + 2 + 2 + 2)"}};
  EXPECT_EQ(reading::folded("A", env, {}), "");
  EXPECT_EQ(reading::folded("E", env, {}), "((2 + 2 + 2 + 2) * (2 + 2 + 2 + 2) * (2 + 2 + 2 + 2) * (2 + 2 + 2 + 2))");
}

// The tune line names a few tunables one by one and counts many.
TEST(LaunchTunables, TheTuneLineCountsManyTunables) {
  SourceSpace many = source_space({kTiledLauncher, "/src/k.cu", "sm_90", "", {}, {}});
  ASSERT_GE(many.summary.size(), 1u);  // then the rewrites without a model (kernel_rewrites.h)
  EXPECT_EQ(many.summary[0],
            "11 at 3 launch sites (8 constants, 3 template arguments; 'kernelblaster tune --list' names each)");
  SourceSpace few = source_space({kDefinesSample, "/src/k.cu", "sm_90", "", {}, {}});
  ASSERT_FALSE(few.summary.empty());
  EXPECT_EQ(few.summary[0], "STRIP_X (define, line 4)");
}

// A literal template argument that is tuned stands for its macro in the
// kernel's constraints too: the tile's shared memory grows with it.
TEST(LaunchTunables, ATunedLiteralArgumentEntersTheKernelsConstraints) {
  const std::string path = std::string(KERNELBLASTER_TUNER_TEST_DATA) + "/launch_sites.cu";
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LaunchTunables l = find_launch_tunables(text, path, {}, {});
  const FoundTunable* steps = nullptr;
  for (const FoundTunable& t : l.tunables)
    if (t.kind == "template argument") steps = &t;
  ASSERT_TRUE(steps);
  ASSERT_EQ(l.sites.size(), 1u);
  EXPECT_TRUE(has_constraint(l.sites[0], "* (" + steps->tunable.name + ") + 2 * HALO) <= 49152"))
      << ::testing::PrintToString(l.sites[0].constraints);
  // The grid's equal literals follow the argument: (w + TX * S - 1) / (TX * S).
  EXPECT_NE(l.text.find("(w + TX * " + steps->tunable.name + " - 1) / (TX * " + steps->tunable.name + ")"),
            std::string::npos)
      << l.text;
}

// A counted loop that steps by a value the tunables fold to 0 never ends:
// the space leaves those configurations out, as SGEMM_CUDA's kernel 5
// needs (its tile loads step by numThreads / BK). A step no value makes 0
// (`k += BK`) asks nothing.
TEST(LaunchTunables, ALoopStepThatFoldsToZeroIsAConstraint) {
  const std::string text = R"(#include <cuda_runtime.h>
template <int BM, int BK, int TM>
__global__ void load_tiles(const float* a, float* out, int k_total) {
  __shared__ float tile[BM * BK];
  const int threads = BM / TM;
  const int stride = threads / BK;
  for (int k = 0; k < k_total; k += BK) {
    for (int row = 0; row < BM; row += stride) tile[(row + threadIdx.x / BK) * BK + threadIdx.x % BK] = a[k + row];
    __syncthreads();
  }
  out[threadIdx.x] = tile[threadIdx.x];
}

void launch(const float* a, float* out, int k_total) {
  const int BM = 64;
  const int BK = 8;
  const int TM = 4;
  load_tiles<BM, BK, TM><<<1, BM / TM>>>(a, out, k_total);
}
)";
  LaunchTunables l = find_launch_tunables(text, "/src/k.cu", parse_directives(text, "/src/k.cu", "sm_90"), {});
  ASSERT_EQ(l.sites.size(), 1u);
  std::map<std::string, std::string> name;
  for (const FoundTunable& t : l.tunables) name[t.written_as] = t.tunable.name;
  ASSERT_EQ(name.size(), 3u) << ::testing::PrintToString(l.sites[0].constraints);
  const auto& c = l.sites[0].constraints;
  const auto step = std::find_if(c.begin(), c.end(), [](const std::string& s) { return s.find("!= 0") != std::string::npos; });
  ASSERT_NE(step, c.end()) << ::testing::PrintToString(c);
  EXPECT_EQ(std::count_if(c.begin(), c.end(), [](const std::string& s) { return s.find("!= 0") != std::string::npos; }), 1)
      << "`k += BK` asks nothing: " << ::testing::PrintToString(c);
  const Constraint rule(*step);
  // BM 64, TM 4: 16 threads; BK 8 steps by 2, BK 32 by 0.
  EXPECT_TRUE(rule.holds({{name["BM"], 64}, {name["BK"], 8}, {name["TM"], 4}}));
  EXPECT_FALSE(rule.holds({{name["BM"], 64}, {name["BK"], 32}, {name["TM"], 4}}));
}

namespace {

// A stencil as samples write it (issue 72): its block's shape in a project
// header, `#pragma once`, which the kernel's own header includes too; the
// launcher sets its block member by member and clamps a run-time block size.
struct StencilProject {
  fs::path dir = fs::temp_directory_path() / ("kb_header_knobs_" + std::to_string(::getpid()));
  std::string source = (dir / "stencil.cu").string();
  std::string text;
  StencilProject() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "stencil.h") << "#pragma once\n#define k_blockDimX 32\n#define k_blockDimMaxY 16\n"
                                        "#define RADIUS 4\n#define GRID_N 512\n"
                                        "#define k_blockSizeMax (k_blockDimX * k_blockDimMaxY)\n";
    std::ofstream(dir / "stencil_kernel.cuh")
        << "#pragma once\n#include \"stencil.h\"\n"
           "__global__ void stencil_kernel(float* out, const float* in, int dimx, int dimy) {\n"
           "  __shared__ float tile[k_blockDimMaxY + 2 * RADIUS][k_blockDimX + 2 * RADIUS];\n"
           "  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "  tile[threadIdx.y + RADIUS][threadIdx.x + RADIUS] = in[y * dimx + x];\n"
           "  __syncthreads();\n"
           "  if (x < GRID_N) out[y * dimx + x] = tile[threadIdx.y + RADIUS][threadIdx.x + RADIUS];\n}\n";
    text = "#include <algorithm>\n#include \"stencil.h\"\n#include \"stencil_kernel.cuh\"\n#include \"missing.h\"\n"
           "void run_stencil(float* out, const float* in, int dimx, int dimy, int user_block) {\n"
           "  float* scratch;\n  cudaMalloc(&scratch, GRID_N * sizeof(float));\n"
           "  user_block = std::min(user_block, k_blockSizeMax);\n"
           "  dim3 dimBlock, dimGrid;\n  dimBlock.x = k_blockDimX;\n"
           "  dimBlock.y = (user_block / k_blockDimX) < k_blockDimMaxY ? user_block / k_blockDimX : k_blockDimMaxY;\n"
           "  dimGrid.x = (dimx + dimBlock.x - 1) / dimBlock.x;\n  dimGrid.y = (dimy + dimBlock.y - 1) / dimBlock.y;\n"
           "  stencil_kernel<<<dimGrid, dimBlock>>>(out, in, dimx, dimy);\n}\n";
    std::ofstream(source) << text;
  }
  ~StencilProject() { fs::remove_all(dir); }
};

std::string all_notes(const LaunchTunables& l) {
  std::string all;
  for (const std::string& n : l.notes) all += n + "\n";
  return all;
}

}  // namespace

// Issue 72: knobs kept in a project header are found, said with their
// header, and tuned through a copy that takes the headers' text in the
// includes' places; a header value the host sizes data with is not one; a
// header found nowhere and an include directory that does not exist are said.
TEST(LaunchTunables, KnobsInAProjectHeaderAreFoundWithTheirHeader) {
  StencilProject p;
  const LaunchTunables l =
      find_launch_tunables(p.text, p.source, parse_directives(p.text, p.source, "sm_90"), {"/no/such/include"});
  const FoundTunable* x = named(l, "k_blockDimX");
  ASSERT_TRUE(x) << all_notes(l);
  EXPECT_EQ(x->header, (p.dir / "stencil.h").string());
  EXPECT_EQ(x->line, 2);
  EXPECT_TRUE(named(l, "k_blockDimMaxY"));
  EXPECT_FALSE(named(l, "GRID_N"));  // sizes a cudaMalloc: the problem's size
  const std::string notes = all_notes(l);
  EXPECT_NE(notes.find("GRID_N sizes the program's data (cudaMalloc at line 7)"), std::string::npos) << notes;
  EXPECT_NE(notes.find("\"missing.h\" (included at line 4) was not found"), std::string::npos) << notes;
  EXPECT_NE(notes.find("the include directory /no/such/include does not exist"), std::string::npos) << notes;
  ASSERT_EQ(l.sites.size(), 1u);
  EXPECT_TRUE(has_constraint(l.sites[0], "<= 49152")) << ::testing::PrintToString(l.sites[0].constraints);
  // Every definition of a tuned knob in the copy is under #ifndef: the
  // kernel's header, which includes stencil.h again, reads the candidate's value.
  std::size_t defines = 0;
  for (std::size_t at = l.text.find("#define k_blockDimX "); at != std::string::npos;
       at = l.text.find("#define k_blockDimX ", at + 1), ++defines)
    EXPECT_EQ(l.text.rfind("#ifndef k_blockDimX\n", at), at - std::string("#ifndef k_blockDimX\n").size());
  EXPECT_GE(defines, 1u);
  EXPECT_EQ(l.text.find("#include \"stencil.h\""), std::string::npos);
  EXPECT_NE(l.text.find("#include <algorithm>"), std::string::npos);  // system headers stay includes
  const std::string listing = listing_text(list_tunables({p.text, p.source, "sm_90", "", {}, {}}));
  EXPECT_NE(listing.find("k_blockDimX = 32  [define k_blockDimX, stencil.h line 2]"), std::string::npos) << listing;
}

TEST(LaunchTunables, TheCopyWithAHeadersKnobCompilesToTheOriginalsCodeAtItsDefaults) {
  if (!fs::exists(test_support::kNvcc)) GTEST_SKIP() << "no nvcc";
  StencilProject p;
  std::ofstream(p.source, std::ios::trunc) << std::string(p.text).replace(p.text.find("#include \"missing.h\"\n"), 21, "");
  const std::string text = std::string(p.text).replace(p.text.find("#include \"missing.h\"\n"), 21, "");
  const LaunchTunables l = find_launch_tunables(text, p.source, parse_directives(text, p.source, "sm_90"), {});
  std::ofstream(p.dir / "copy.cu") << l.text;
  std::ofstream(p.dir / "other.cu") << "#define k_blockDimX 64\n" + l.text;
  const std::string a = test_support::cubin_of(p.dir, "stencil"), b = test_support::cubin_of(p.dir, "copy"),
                    c = test_support::cubin_of(p.dir, "other");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}
