// A harness that replays recorded launches, reshaped by the source's own
// launch expressions (tuner/replay_shapes.h): the harness is the one the
// build synthesizes (harness/kernel_capture.h) from launches recorded the way
// the recorder records them, the source a sample whose kernels main()
// launches through a pointer, with `#define`d tiles.
#include "tuner/replay_shapes.h"

#include <gtest/gtest.h>

#include <cstring>

#include "recorder/kernel_signature.h"
#include "tuner/launch_tunables.h"
#include "harness/capture_harness.h"
#include "harness/kernel_capture.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Two float buffers and two ints, as the recorder saw them.
harness::KernelRecording recording(const std::string& mangled, const std::string& name, unsigned grid_x, unsigned grid_y,
                                 unsigned block_x, unsigned block_y, int w, int h) {
  harness::KernelRecording r;
  r.kernel = mangled;
  r.name = name;
  r.signature = recorder::read_signature(name);
  harness::RecordedLaunch l;
  l.grid[0] = grid_x, l.grid[1] = grid_y, l.block[0] = block_x, l.block[1] = block_y;
  for (std::uint64_t address : {0x7000ull, 0x900000ull}) {
    harness::RecordedParam p;
    p.bytes.resize(8);
    std::memcpy(p.bytes.data(), &address, 8);
    p.buffer = true;
    p.extent = 4LL * w * h;
    p.written = address == 0x7000ull;
    l.params.push_back(p);
  }
  for (int v : {w, h}) {
    harness::RecordedParam p;
    p.bytes.resize(4);
    std::memcpy(p.bytes.data(), &v, 4);
    l.params.push_back(p);
  }
  r.launches.push_back(l);
  return r;
}

std::string harness_of(const std::vector<harness::KernelRecording>& recordings) {
  std::vector<harness::Capture> captures;
  std::vector<std::string> definitions;
  for (const harness::KernelRecording& r : recordings) {
    harness::KernelCapture kc = harness::kernel_capture(r, "transpose.cu");
    captures.push_back(kc.capture);
    definitions.push_back(kc.definition);
  }
  return harness::synthesize_harness(captures, definitions).text;
}

std::string sample(const std::string& launch_args, const std::string& extra_kernel = "") {
  return "#define TILE_DIM 32\n"
         "#define BLOCK_ROWS 8\n"
         "__global__ void copy(float *o, float *in, int w, int h) {\n"
         "  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;\n"
         "  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) o[(y + i) * w + x] = in[(y + i) * w + x];\n"
         "}\n"
         "__global__ void transposeNaive(float *o, float *in, int w, int h) {\n"
         "  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;\n"
         "  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) o[x * h + y + i] = in[(y + i) * w + x];\n"
         "}\n" +
         extra_kernel +
         "int main() {\n"
         "  int size_x, size_y;\n"
         "  read_sizes(&size_x, &size_y);\n"
         "  void (*kernel)(float *, float *, int, int);\n"
         "  dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);\n"
         "  for (int k = 0; k < 2; ++k) {\n"
         "    kernel = k == 0 ? &copy : &transposeNaive;\n"
         "    kernel<<<grid, threads>>>(" + launch_args + ");\n"
         "  }\n"
         "}\n";
}

ReplayShapes reshaped(const std::string& source, const std::string& harness) {
  const LaunchTunables found = find_launch_tunables(source, "/p/transpose.cu", SpaceDecl{}, {});
  return reshape_replayed_launches(harness, source, "/p/transpose.cu", found, {});
}

const std::vector<harness::KernelRecording> kRecorded = {
    recording("_Z4copyPfS_ii", "copy(float*, float*, int, int)", 32, 16, 32, 8, 1024, 512),
    recording("_Z14transposeNaivePfS_ii", "transposeNaive(float*, float*, int, int)", 32, 16, 32, 8, 1024, 512)};

// One recorded kernel of `source`, and what the reshaping made of it; a
// test that expects one tunable names the first note when there is none.
ReplayShapes reshaped_one(const std::string& source, const harness::KernelRecording& recorded) {
  return reshaped(source, harness_of({recorded}));
}

}  // namespace

TEST(ReplayShapes, LaunchesFromMainTakeTheShapeTheirExpressionsGive) {
  const ReplayShapes r = reshaped(sample("d_o, d_i, size_x, size_y"), harness_of(kRecorded));
  EXPECT_EQ(r.tunables, (std::vector<std::string>{"TILE_DIM", "BLOCK_ROWS"}));
  EXPECT_EQ(r.reshaped, (std::vector<std::string>{"copy (line 18)", "transposeNaive (line 18)"}));
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
  // The launcher computes its shape from the value the launch passed (p2, p3) and the build's tiles.
  EXPECT_TRUE(has(r.harness, "  grid_x = static_cast<long long>(p2 / TILE_DIM);\n")) << r.harness;
  EXPECT_TRUE(has(r.harness, "  grid_y = static_cast<long long>(p3 / TILE_DIM);\n"));
  EXPECT_TRUE(has(r.harness, "  block_y = static_cast<long long>(BLOCK_ROWS);\n"));
  EXPECT_TRUE(has(r.harness, "  shared_bytes = static_cast<long long>(0);\n  if (shared_bytes > 48 * 1024)"));
  EXPECT_TRUE(has(r.harness, "#ifndef TILE_DIM\n#define TILE_DIM 32\n#endif\n#ifndef BLOCK_ROWS\n#define BLOCK_ROWS 8\n#endif\n"));
  EXPECT_LT(r.harness.find("#define TILE_DIM 32"), r.harness.find("void k_copy("));
}

TEST(ReplayShapes, ExpressionsThatMissTheRecordedShapeKeepIt) {
  std::vector<harness::KernelRecording> recorded = kRecorded;
  recorded[1] = recording("_Z14transposeNaivePfS_ii", "transposeNaive(float*, float*, int, int)", 64, 16, 32, 8, 1024, 512);
  const ReplayShapes r = reshaped(sample("d_o, d_i, size_x, size_y"), harness_of(recorded));
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.front(), "transposeNaive keeps its recorded shape: grid_x = p2 / TILE_DIM is not the recorded 64");
  // copy alone is reshaped, but the tiles also shape transposeNaive's launch: nothing can be searched.
  EXPECT_TRUE(r.tunables.empty());
  EXPECT_TRUE(r.harness.empty());
}

TEST(ReplayShapes, ATunableTheLaunchPassesToTheKernelStaysAsWritten) {
  const ReplayShapes r = reshaped(sample("d_o, d_i, size_x, TILE_DIM"), harness_of(kRecorded));
  // size_y is no argument now: grid_y reads a value the harness does not have.
  EXPECT_TRUE(r.tunables.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(has(r.notes.front(), "`size_y / TILE_DIM` reads `size_y`, neither a value the launch passes to the "
                                   "kernel nor an integer constant"))
      << r.notes.front();
}

TEST(ReplayShapes, ATileAKernelNeverRecordedReadsStaysAsWritten) {
  const ReplayShapes r = reshaped(
      sample("d_o, d_i, size_x, size_y",
             "__global__ void unused(float *o) { o[threadIdx.x * TILE_DIM] = 0; }\n"),
      harness_of(kRecorded));
  EXPECT_EQ(r.tunables, std::vector<std::string>{"BLOCK_ROWS"});
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes.front(), "TILE_DIM stays as written: kernel unused reads it and was not recorded");
}

TEST(ReplayShapes, AHarnessThatReplaysNothingIsLeftAlone) {
  EXPECT_TRUE(reshaped(sample("d_o, d_i, size_x, size_y"), "int main() { return 0; }\n").harness.empty());
}

// The most common launch in main(): a 1-D grid rounded up from the size the
// launch passes (`(n + BLOCK - 1) / BLOCK`) and a `#define`d block.
TEST(ReplayShapes, ARoundedUpGridFromTheSizePassed) {
  const std::string source =
      "#define BLOCK 256\n"
      "__global__ void scale(float *o, float *in, int n, int unused) {\n"
      "  int i = blockIdx.x * BLOCK + threadIdx.x;\n"
      "  if (i < n) o[i] = 2 * in[i];\n"
      "}\n"
      "int main() {\n"
      "  int n = 1000, m = 1;\n"
      "  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_o, d_i, n, m);\n"
      "}\n";
  const ReplayShapes r =
      reshaped_one(source, recording("_Z5scalePfS_ii", "scale(float*, float*, int, int)", 4, 1, 256, 1, 1000, 1));
  EXPECT_EQ(r.tunables, std::vector<std::string>{"BLOCK"});
  EXPECT_TRUE(has(r.harness, "  grid_x = static_cast<long long>((p2 + BLOCK - 1) / BLOCK);\n")) << r.harness;
  EXPECT_TRUE(has(r.harness, "  block_x = static_cast<long long>(BLOCK);\n"));
}

// The training exercise's idiom (olcf/cuda-training-series): the grid is
// rounded up from the block's own members, `dim3 grid((DSIZE + block.x - 1)
// / block.x, ...)`, with a namespace-scope tile and the problem's size a
// constant the host allocates with.
TEST(ReplayShapes, AGridReadFromTheBlocksMembers) {
  const std::string source =
      "const int DSIZE = 1024;\n"
      "const int block_size = 32;\n"
      "__global__ void mmul(float *c, float *a, int ds, int unused) {\n"
      "  __shared__ float as[block_size][block_size];\n"
      "  c[threadIdx.x] = a[threadIdx.x] + as[0][0] + ds;\n"
      "}\n"
      "int main() {\n"
      "  float *d_c, *d_a;\n"
      "  cudaMalloc(&d_c, DSIZE * DSIZE * sizeof(float));\n"
      "  int m = 1;\n"
      "  dim3 block(block_size, block_size);\n"
      "  dim3 grid((DSIZE + block.x - 1) / block.x, (DSIZE + block.y - 1) / block.y);\n"
      "  mmul<<<grid, block>>>(d_c, d_a, DSIZE, m);\n"
      "}\n";
  const ReplayShapes r =
      reshaped_one(source, recording("_Z4mmulPfS_ii", "mmul(float*, float*, int, int)", 32, 32, 32, 32, 1024, 1));
  ASSERT_EQ(r.tunables.size(), 1u) << (r.notes.empty() ? "" : r.notes.front());
  EXPECT_TRUE(has(r.tunables[0], "block_size"));
  // DSIZE is the value the launch passes as `ds`: the harness's p2.
  EXPECT_TRUE(has(r.harness, "grid_x = static_cast<long long>((p2 + (KERNELBLASTER_block_size_L2) - 1) / "
                             "(KERNELBLASTER_block_size_L2));"))
      << r.harness;
}

// A block the program's input may change (CUDA_Freshman: `int dimx = BDIMX;`,
// then `dimx = atoi(argv[2])` when given) keeps its recorded shape, and
// the line says which value.
TEST(ReplayShapes, ABlockTheInputMayChangeKeepsItsRecordedShape) {
  const std::string source =
      "#define BDIMX 8\n"
      "__global__ void scale(float *o, float *in, int n, int unused) {\n"
      "  o[blockIdx.x * blockDim.x + threadIdx.x] = in[0] * BDIMX;\n"
      "}\n"
      "int main(int argc, char **argv) {\n"
      "  int n = 1024, m = 1;\n"
      "  int dimx = BDIMX;\n"
      "  if (argc > 1) dimx = atoi(argv[1]);\n"
      "  dim3 block(dimx);\n"
      "  scale<<<(n - 1) / block.x + 1, block>>>(d_o, d_i, n, m);\n"
      "}\n";
  const ReplayShapes r =
      reshaped_one(source, recording("_Z5scalePfS_ii", "scale(float*, float*, int, int)", 128, 1, 8, 1, 1024, 1));
  EXPECT_TRUE(r.tunables.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(has(r.notes.front(), "reads `dimx`, set more than once before the launch")) << r.notes.front();
}

// A size the launch does not pass, but a file-scope constant of an integer
// expression (olcf's reductions: `const size_t N = 8ULL*1024ULL*1024ULL;`).
TEST(ReplayShapes, AFileScopeConstantExpressionIsKnown) {
  const std::string source =
      "const size_t N = 4ULL * 256ULL;\n"
      "const int BLOCK_SIZE = 256;\n"
      "__global__ void scale(float *o, float *in, int a, int b) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < N) o[i] = 2 * in[i];\n"
      "}\n"
      "int main() {\n"
      "  int a = 1, b = 2;\n"
      "  scale<<<(N + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(d_o, d_i, a, b);\n"
      "}\n";
  const ReplayShapes r =
      reshaped_one(source, recording("_Z5scalePfS_ii", "scale(float*, float*, int, int)", 4, 1, 256, 1, 1, 2));
  ASSERT_EQ(r.tunables.size(), 1u) << (r.notes.empty() ? "" : r.notes.front());
  EXPECT_TRUE(has(r.harness, "grid_x = static_cast<long long>(((4 * 256) + KERNELBLASTER_BLOCK_SIZE_L2 - 1) / "
                             "KERNELBLASTER_BLOCK_SIZE_L2);"))
      << r.harness;
}

// The build's gates run the tuned source with the same harness the tuner
// did: its launchers reshaped, the tuned values given with -D.
TEST(ReplayShapes, TheGatesRunATunedSourceWithTheShapesItsValuesGive) {
  const std::string source = sample("d_o, d_i, size_x, size_y");
  const std::string tuned = "#define BLOCK_ROWS 4\n#line 1 \"/p/transpose.cu\"\n" + source;
  const TunedShapes t = shapes_for_tuned(harness_of(kRecorded), source, "/p/transpose.cu", tuned, {});
  EXPECT_EQ(t.definitions, std::vector<std::string>{"BLOCK_ROWS=4"});
  EXPECT_TRUE(has(t.harness, "  block_y = static_cast<long long>(BLOCK_ROWS);\n"));
  // The original as the build renders it, and flags alone, need nothing.
  EXPECT_TRUE(shapes_for_tuned(harness_of(kRecorded), source, "/p/transpose.cu", "#line 1 \"/p/transpose.cu\"\n" + source, {})
                  .harness.empty());
}
