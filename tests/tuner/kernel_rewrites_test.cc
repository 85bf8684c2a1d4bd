// Rewrites without a model (kernel_rewrites.h): which loops and kernels get
// one, what the copy looks like, and that it compiles to the original's
// code at its defaults and to other code with another value.
#include "tuner/kernel_rewrites.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/kernel_replay.h"
#include "cubin.h"
#include "tuner/harness_space.h"
#include "tuner/source_space.h"

namespace kernelblaster::tuner {
namespace {

namespace fs = std::filesystem;

const char* kReduce = R"(#define THREADS 256
#define ITEMS 8
__device__ float sum_items(const float* p, int n) {
  float s = 0;
  for (int i = 0; i < ITEMS; ++i) s += p[i * n];
  return s;
}
__global__ void reduce(float* out, const float* in, int n) {
  float acc = 0;
  for (int k = threadIdx.x; k < n; k += blockDim.x) acc += sum_items(in + k, n);
  #pragma unroll 4
  for (int j = 0; j < 16; ++j) acc *= 0.5f;
  for (int w = 0; w < 4; ++w) {
    if (acc > 1) w = 4;
  }
  for (int s = 16; s > 0; s >>= 1) acc += __shfl_down_sync(0xffffffff, acc, s);
  out[blockIdx.x * THREADS + threadIdx.x] = acc;
}
__global__ void scale(float* x, int n, int threads) { x[threadIdx.x] *= 2; }
void run(float* out, const float* in, float* x, int n, int t) {
  reduce<<<n / THREADS, THREADS>>>(out, in, n);
  scale<<<1, t>>>(x, n, t);
}
)";

const Tunable* named(const KernelRewrites& r, const std::string& name) {
  for (const Tunable& t : r.tunables)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(KernelRewrites, CountedLoopsInKernelsGetAnUnrollFactor) {
  KernelRewrites r = prepare_kernel_rewrites(kReduce, "k.cu", {});
  // Line 5: a trip count of 8 the source fixes.
  const Tunable* items = named(r, "KERNELBLASTER_UNROLL_sum_items");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->values, (std::vector<std::string>{"0", "2", "4", "8"}));
  EXPECT_EQ(items->default_value, "0");
  EXPECT_EQ(items->technique, "loop_unrolling");
  EXPECT_NE(items->origin.find("k.cu:5 "), std::string::npos) << items->origin;
  // In the kernel only line 10's loop, whose trip count the input decides,
  // is counted and free: line 12 has its own pragma (the author's choice),
  // line 13's body writes its variable, line 16 halves it.
  const Tunable* strided = named(r, "KERNELBLASTER_UNROLL_reduce");
  ASSERT_NE(strided, nullptr);
  EXPECT_NE(strided->origin.find("1 counted loop in reduce"), std::string::npos) << strided->origin;
  EXPECT_NE(r.text.find("KERNELBLASTER_PRAGMA_UNROLL_AT(KERNELBLASTER_UNROLL_sum_items) for (int i = 0;"),
            std::string::npos);
  EXPECT_NE(r.text.find("KERNELBLASTER_PRAGMA_UNROLL_AT(KERNELBLASTER_UNROLL_reduce) for (int k ="), std::string::npos);
  EXPECT_EQ(r.text.find("KERNELBLASTER_PRAGMA_UNROLL_AT(KERNELBLASTER_UNROLL_reduce) for (int j"), std::string::npos);
  // A loop of 4 trips or fewer the compiler unrolls whole already.
  KernelRewrites few = prepare_kernel_rewrites("__global__ void k(float* p) { for (int i = 0; i < 4; ++i) p[i] = 0; }",
                                               "k.cu", {});
  EXPECT_TRUE(few.tunables.empty());
}

TEST(KernelRewrites, RewritesJoinTheGroupOfTheSitesThatLaunchTheKernelElseOneOfTheirOwn) {
  LaunchSite site;
  site.kernel = "reduce";
  site.group = "run:21";
  KernelRewrites r = prepare_kernel_rewrites(kReduce, "k.cu", {}, {site});
  EXPECT_EQ(named(r, "KERNELBLASTER_UNROLL_reduce")->group, "run:21");
  EXPECT_EQ(named(r, "KERNELBLASTER_MIN_BLOCKS_reduce")->group, "run:21");
  EXPECT_EQ(named(r, "KERNELBLASTER_UNROLL_sum_items")->group, "rewrites of sum_items");
  // A group whose product would not fit a part: the rewrites go on their own.
  SpaceDecl big;
  for (int i = 0; i < 8; ++i)
    big.tunables.push_back({"T" + std::to_string(i), {"1", "2", "3", "4", "5", "6"}, "1", "parameter_tuning", "", "run:21"});
  KernelRewrites apart = prepare_kernel_rewrites(kReduce, "k.cu", big, {site});
  EXPECT_EQ(named(apart, "KERNELBLASTER_UNROLL_reduce")->group, "rewrites of reduce");
}

TEST(KernelRewrites, AKernelWithAFixedBlockGetsLaunchBoundsThatCoverIt) {
  KernelRewrites r = prepare_kernel_rewrites(kReduce, "k.cu", {});
  const Tunable* bounds = named(r, "KERNELBLASTER_MIN_BLOCKS_reduce");
  ASSERT_NE(bounds, nullptr);
  EXPECT_EQ(bounds->values, (std::vector<std::string>{"0", "1", "2", "4"}));
  EXPECT_EQ(bounds->technique, "launch_bounds");
  EXPECT_NE(r.text.find("__global__ void KERNELBLASTER_BOUNDS_AT(KERNELBLASTER_MIN_BLOCKS_reduce, (256)) reduce("),
            std::string::npos);
  // Launched with a block the input decides: no bound can be known to hold.
  EXPECT_EQ(named(r, "KERNELBLASTER_MIN_BLOCKS_scale"), nullptr);
  // A tunable block stays the tunable's name, so the bound follows every candidate's value.
  SpaceDecl declared;
  declared.tunables.push_back({"THREADS", {"128", "256"}, "256", "block_size_adaptation", "k.cu:1", ""});
  KernelRewrites tuned = prepare_kernel_rewrites(kReduce, "k.cu", declared);
  EXPECT_NE(tuned.text.find("KERNELBLASTER_BOUNDS_AT(KERNELBLASTER_MIN_BLOCKS_reduce, (THREADS)) reduce("),
            std::string::npos);
}

TEST(KernelRewrites, RestrictIsOfferedOnKernelsWithTwoPointersAndKeptOnlyWhereRecordingsBackIt) {
  KernelRewrites r = prepare_kernel_rewrites(kReduce, "k.cu", {});
  const Tunable* restrict = named(r, "KERNELBLASTER_RESTRICT_reduce");
  ASSERT_NE(restrict, nullptr);
  EXPECT_EQ(restrict->values, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(restrict->technique, "read_only_cache");
  EXPECT_NE(r.text.find("reduce(float* KERNELBLASTER_RESTRICT_WHEN(KERNELBLASTER_RESTRICT_reduce) out, const float* "
                        "KERNELBLASTER_RESTRICT_WHEN(KERNELBLASTER_RESTRICT_reduce) in, int n)"),
            std::string::npos);
  EXPECT_EQ(named(r, "KERNELBLASTER_RESTRICT_scale"), nullptr);  // one pointer: nothing to tell apart
  EXPECT_TRUE(prepare_kernel_rewrites("__global__ void k(float* __restrict__ a, float* b) { a[0] = b[0]; }\n"
                                      "void f(float* a, float* b) { k<<<1, 32>>>(a, b); }\n", "k.cu", {})
                  .text.find("KERNELBLASTER_RESTRICT_WHEN") == std::string::npos);  // the author already said

  const SourceSpace found = source_space({kReduce, "k.cu", "sm_90", "", {}, {}});
  // A native harness: the program's own calls are unknown, so it stays as written, and says why.
  SpaceDecl native = found.decl;
  HarnessSpace n = harness_space("int main() { run(0, 0, 0, 1 << 20, 32); }\n", found, found.text, "k.cu", {}, native);
  EXPECT_TRUE(std::none_of(native.tunables.begin(), native.tunables.end(), is_restrict_rewrite));
  ASSERT_FALSE(n.lines.empty());
  EXPECT_NE(n.lines[0].find("KERNELBLASTER_RESTRICT_reduce stays as written: no recorded launch of reduce"),
            std::string::npos) << n.lines[0];
  // A replay harness whose recordings had reduce's buffers apart keeps it.
  SpaceDecl replayed = found.decl;
  const std::string harness = std::string(kKernelReplayMarker) + "\n" + kDisjointBuffersNote + "reduce\n";
  harness_space(harness, found, found.text, "k.cu", {}, replayed);
  EXPECT_TRUE(std::any_of(replayed.tunables.begin(), replayed.tunables.end(), is_restrict_rewrite));
}

TEST(KernelRewrites, LinesAreTheOriginalFilesAndDiscoverOffTurnsThemOff) {
  const std::string prepared = "#ifndef X\n#define X 1\n#endif\n#line 1 \"k.cu\"\n" + std::string(kReduce);
  KernelRewrites r = prepare_kernel_rewrites(prepared, "k.cu", {});
  EXPECT_NE(named(r, "KERNELBLASTER_UNROLL_sum_items")->origin.find("k.cu:5 "), std::string::npos);
  EXPECT_EQ(logical_line("a\n#line 40 \"x.cu\"\nb\nc\n", 20), 41);  // c
  SpaceDecl off;
  off.discover = false;
  KernelRewrites none = prepare_kernel_rewrites(kReduce, "k.cu", off);
  EXPECT_TRUE(none.tunables.empty());
  EXPECT_EQ(none.text, kReduce);
}

TEST(KernelRewrites, SourceSpaceOffersThemAndSaysSo) {
  SourceSpace s = source_space({kReduce, "k.cu", "sm_90", "", {}, {}});
  bool unroll = false, bounds = false;
  for (const std::string& line : s.summary) {
    unroll |= line.find("counted loops in 2 functions (unroll factor") != std::string::npos;
    bounds |= line.find("launch bounds") != std::string::npos;
  }
  EXPECT_TRUE(unroll);
  EXPECT_TRUE(bounds);
}

// The copy compiles to the original's machine code at its defaults, and to
// other code with an unroll factor or a bound: what the tuner relies on.
TEST(KernelRewrites, TheCopyCompilesToTheOriginalsCodeAtItsDefaults) {
  if (!fs::exists(test_support::kNvcc)) GTEST_SKIP() << "no nvcc";
  const fs::path dir = fs::temp_directory_path() / "kb_kernel_rewrites_sass";
  fs::create_directories(dir);
  const std::string original = (dir / "k.cu").string();
  std::ofstream(original) << kReduce;
  KernelRewrites r = prepare_kernel_rewrites(kReduce, original, {});
  std::ofstream(dir / "copy.cu") << r.text;
  std::ofstream(dir / "unrolled.cu") << "#define KERNELBLASTER_UNROLL_reduce 4\n" + r.text;
  std::ofstream(dir / "bounded.cu") << "#define KERNELBLASTER_MIN_BLOCKS_reduce 4\n" + r.text;
  std::ofstream(dir / "restricted.cu") << "#define KERNELBLASTER_RESTRICT_reduce 1\n" + r.text;
  const std::string a = test_support::cubin_of(dir, "k");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, test_support::cubin_of(dir, "copy"));
  EXPECT_NE(a, test_support::cubin_of(dir, "unrolled"));
  EXPECT_NE(a, test_support::cubin_of(dir, "bounded"));
  EXPECT_FALSE(test_support::cubin_of(dir, "restricted").empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kernelblaster::tuner
