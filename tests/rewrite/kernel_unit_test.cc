// One kernel as the unit of a rewrite, on a project shaped like real code
// (kernels in headers reached through another header, a template kernel, a
// kernel in the source launched from main, a library header outside the
// project): every kernel is found where it is defined, the code that launches
// it is shown whole, and the source with a rewritten definition compiles as
// one text away from the project, with the user's files untouched and nvcc's
// messages naming the user's file and line.
#include "rewrite/kernel_unit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

namespace kernelblaster::rewrite {
namespace {

namespace fs = std::filesystem;

const std::string kNvcc = "/usr/local/cuda/bin/nvcc";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A project under <tmp>/project, a library beside it under <tmp>/lib.
class KernelUnit : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("kb_kernel_unit_" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    write(root() / "src/runner.cu", R"(#include "kernels/all.cuh"
#include <mathlib.cuh>

// __global__ void in_a_comment(float* x) { }
__global__ void declared_only(float* x);

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = twice(x[i]);
}

void run_add(float* x, int n) {
  const int threads = 256;
  add_one<<<(n + threads - 1) / threads, threads>>>(x, n);
}

void run_tile(float* x, int n) {
  if (n >= 1024) {
    tile<128><<<n / 128, 128>>>(x, n);
  } else {
    tile<32><<<(n + 31) / 32, 32>>>(x, n);
  }
}

int main() {
  float* x = nullptr;
  cudaMalloc(&x, 4096 * sizeof(float));
  scale<<<16, 256>>>(x, 4096);
  run_add(x, 4096);
  run_tile(x, 4096);
  return 0;
}
)");
    write(root() / "src/kernels/all.cuh", "#pragma once\n#include \"add.cuh\"\n#include \"tile.cuh\"\n");
    write(root() / "src/kernels/add.cuh", R"(#pragma once
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) add_one(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
)");
    write(root() / "src/kernels/tile.cuh", R"(#pragma once

template <const int TILE>
__global__ void tile(float* x, int n) {
  __shared__ float s[TILE];
  int i = blockIdx.x * TILE + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) x[i] = s[(threadIdx.x + 1) % TILE];
}
)");
    write(m_dir / "lib/mathlib.cuh",
          "#pragma once\n__device__ inline float twice(float v) { return 2 * v; }\n"
          "__global__ void library_kernel(float* x) { x[0] = 0; }\n");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path root() const { return m_dir / "project"; }
  std::string source() const { return (root() / "src/runner.cu").string(); }
  std::vector<std::string> includes() const { return {(m_dir / "lib").string(), (root() / "src").string()}; }

  fs::path m_dir;
};

TEST_F(KernelUnit, EveryProjectKernelIsFoundWhereItIsDefined) {
  const auto all = kernel_definitions(source(), includes(), root().string());
  std::vector<std::string> names;
  for (const KernelDefinition& d : all) names.push_back(d.name + "@" + fs::path(d.file).filename().string());
  // Not the comment's, not the declaration, not the library's.
  EXPECT_EQ(names, (std::vector<std::string>{"scale@runner.cu", "add_one@add.cuh", "tile@tile.cuh"}));
  const KernelDefinition tile = named(all, "tile").at(0);
  EXPECT_TRUE(tile.is_template);
  EXPECT_EQ(tile.line, 3);
  EXPECT_EQ(tile.text.rfind("template <const int TILE>\n__global__ void tile(", 0), 0u) << tile.text;
  EXPECT_EQ(tile.text.back(), '}');
  const KernelDefinition add = named(all, "add_one").at(0);
  EXPECT_FALSE(add.is_template);
  EXPECT_EQ(add.text.rfind("__global__ void __launch_bounds__(256) add_one(float* x, int n) {", 0), 0u) << add.text;
}

TEST_F(KernelUnit, TheCodeThatLaunchesAKernelIsShownWhole) {
  const std::string text = read(source());
  const auto tile = launching_functions(text, "tile");
  ASSERT_EQ(tile.size(), 1u);  // both launch sites are in one function
  EXPECT_EQ(tile[0].rfind("void run_tile(float* x, int n) {", 0), 0u) << tile[0];
  EXPECT_NE(tile[0].find("tile<32><<<"), std::string::npos);
  const auto scale = launching_functions(text, "scale");
  ASSERT_EQ(scale.size(), 1u);
  EXPECT_EQ(scale[0].rfind("int main() {", 0), 0u) << scale[0];
  EXPECT_TRUE(launching_functions(text, "library_kernel").empty());
}

// nvcc -c of `text` written to <dir>/name.cu, with `includes`; its messages in `log`.
int compile(const fs::path& dir, const std::string& name, const std::string& text,
            const std::vector<std::string>& includes, std::string* log) {
  write(dir / (name + ".cu"), text);
  std::string cmd = kNvcc + " -arch=sm_90 -c -o " + (dir / (name + ".o")).string() + " " + (dir / (name + ".cu")).string();
  for (const std::string& d : includes) cmd += " -I" + d;
  const int rc = std::system((cmd + " 2>" + (dir / (name + ".log")).string()).c_str());
  *log = read(dir / (name + ".log"));
  return rc;
}

TEST_F(KernelUnit, ARewrittenHeaderKernelCompilesAsOneTextAndTheUserFilesStayAsTheyWere) {
  const auto all = kernel_definitions(source(), includes(), root().string());
  const KernelDefinition tile = named(all, "tile").at(0);
  std::map<std::string, std::string> before;
  for (const auto& e : fs::recursive_directory_iterator(m_dir))
    if (e.is_regular_file()) before[e.path().string()] = read(e.path());

  const std::string rewritten = R"(template <const int TILE>
__global__ void tile(float* x, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v = __shfl_down_sync(0xffffffffu, v, 1);
  if (i < n) x[i] = v;
})";
  const std::string text = source_with_kernel(source(), includes(), root().string(), tile, rewritten);
  // One definition of each kernel: the new tile, the others as written.
  EXPECT_NE(text.find("__shfl_down_sync"), std::string::npos);
  EXPECT_EQ(text.find("__shared__ float s[TILE]"), std::string::npos);
  EXPECT_NE(text.find("x[i] += 1.0f"), std::string::npos);
  EXPECT_EQ(text.find("#include \"kernels/all.cuh\""), std::string::npos);
  EXPECT_NE(text.find("#include <mathlib.cuh>"), std::string::npos);  // the library's stays an include
  EXPECT_EQ(text.find("pragma once"), std::string::npos);
  EXPECT_EQ(kernels_in_text(text, "one.cu").size(), 3u);
  EXPECT_NE(text.find("#line 3 \"" + (root() / "src/kernels/tile.cuh").string() + "\"\n" + rewritten), std::string::npos);

  std::map<std::string, std::string> after;
  for (const auto& e : fs::recursive_directory_iterator(m_dir))
    if (e.is_regular_file()) after[e.path().string()] = read(e.path());
  EXPECT_EQ(before, after);

  if (!fs::exists(kNvcc)) GTEST_SKIP() << "no nvcc";
  // Compiled away from the project, with the library's directory only.
  const std::vector<std::string> lib = {(m_dir / "lib").string()};
  std::string log;
  EXPECT_EQ(compile(m_dir / "scratch", "one", text, lib, &log), 0) << log;

  // A mistake in the rewrite is reported at the user's header and line.
  const std::string broken = "template <const int TILE>\n__global__ void tile(float* x, int n) {\n  x[0] = undeclared_name;\n}";
  EXPECT_NE(compile(m_dir / "scratch", "broken",
                    source_with_kernel(source(), includes(), root().string(), tile, broken), lib, &log), 0);
  EXPECT_NE(log.find((root() / "src/kernels/tile.cuh").string() + "(5)"), std::string::npos) << log;
  // And one in the source after an inlined header still names its own line.
  const KernelDefinition scale = named(all, "scale").at(0);
  const std::string bad_scale = "__global__ void scale(float* x, int n) {\n  x[0] = also_undeclared;\n}";
  EXPECT_NE(compile(m_dir / "scratch", "scale",
                    source_with_kernel(source(), includes(), root().string(), scale, bad_scale), lib, &log), 0);
  EXPECT_NE(log.find(source() + "(8)"), std::string::npos) << log;
}

// The definition put back as it was: the one text compiles to the same
// device code as the project does (SGEMM_CUDA's runner.cu, its twelve kernels
// in headers, gave a byte-identical cubin the same way).
TEST_F(KernelUnit, TheKernelPutBackAsItWasCompilesToTheOriginalsCode) {
  if (!fs::exists(kNvcc)) GTEST_SKIP() << "no nvcc";
  const auto all = kernel_definitions(source(), includes(), root().string());
  const KernelDefinition tile = named(all, "tile").at(0);
  const fs::path dir = m_dir / "cubins";
  write(dir / "one.cu", source_with_kernel(source(), includes(), root().string(), tile, tile.text));
  auto cubin = [&](const std::string& from, const std::string& to, const std::vector<std::string>& dirs) {
    std::string cmd = kNvcc + " -arch=sm_90 -cubin -o " + (dir / to).string() + " " + from;
    for (const std::string& d : dirs) cmd += " -I" + d;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return read(dir / to);
  };
  const std::string one = cubin((dir / "one.cu").string(), "one.cubin", {(m_dir / "lib").string()});
  const std::string original = cubin(source(), "original.cubin", includes());
  EXPECT_FALSE(one.empty());
  EXPECT_TRUE(one == original) << "the device code differs";
}

// Two kernels rewritten one after the other, in two files: both new
// definitions in the one text, every line still on its own file and number.
TEST_F(KernelUnit, TwoKernelsReplacedInTwoFilesCompileAsOneText) {
  const auto all = kernel_definitions(source(), includes(), root().string());
  const std::string text = source_with_kernels(
      source(), includes(), root().string(),
      {{named(all, "tile").at(0), "template <const int TILE>\n__global__ void tile(float* x, int n) { /* TILE_NEW */ }"},
       {named(all, "scale").at(0), "__global__ void scale(float* x, int n) {\n  x[0] = scale_undeclared;\n}"}});
  EXPECT_NE(text.find("TILE_NEW"), std::string::npos);
  EXPECT_EQ(kernels_in_text(text, "one.cu").size(), 3u);
  if (!fs::exists(kNvcc)) GTEST_SKIP() << "no nvcc";
  write(m_dir / "two/two.cu", text);
  const std::string cmd = kNvcc + " -arch=sm_90 -c -o " + (m_dir / "two/two.o").string() + " " +
                          (m_dir / "two/two.cu").string() + " -I" + (m_dir / "lib").string() + " 2>" +
                          (m_dir / "two/log").string();
  EXPECT_NE(std::system(cmd.c_str()), 0);  // scale's new body names an undeclared identifier
  EXPECT_NE(read(m_dir / "two/log").find(source() + "(8)"), std::string::npos) << read(m_dir / "two/log");
}

TEST_F(KernelUnit, ADefinitionThatMovedSinceItWasReadIsRefused) {
  const KernelDefinition add = named(kernel_definitions(source(), includes(), root().string()), "add_one").at(0);
  write(root() / "src/kernels/add.cuh", "#pragma once\n// edited\n" + read(root() / "src/kernels/add.cuh"));
  try {
    source_with_kernel(source(), includes(), root().string(), add, "__global__ void add_one(float*, int) {}");
    FAIL() << "a text was made";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no longer where it was read"), std::string::npos) << e.what();
  }
}

// A recorded harness of several launchers names each dimension after its
// launcher: a unit is shown only its own launchers' dimensions.
TEST(UnitShapes, OnlyTheDimensionsOfTheUnitsOwnLaunchers) {
  rewrite::KernelUnit u;
  u.launchers = {"void run_a(float* x, int n) {\n  a<<<n / 256, 256>>>(x, n);\n}\n"};
  const std::vector<ShapeLine> sizes = {{"size0", {{"run_a_n", 4096}, {"run_b_n", 128}, {"run_b_m", 7}}},
                                        {"", {{"run_a_n", 256}, {"run_b_n", 64}, {"run_b_m", 3}}}};
  EXPECT_EQ(unit_shapes(sizes, {"run_a", "run_b"}, u), "size0 run_a_n=4096\nsize run_a_n=256\n");
  // A harness of one launcher (unprefixed dimensions): every dimension.
  EXPECT_EQ(unit_shapes({{"size0", {{"n", 4096}, {"m", 2}}}}, {}, u), "size0 m=2 n=4096\n");
  // No launcher of the unit among those called: every dimension, as before.
  rewrite::KernelUnit other;
  other.launchers = {"int main() { c<<<1, 1>>>(); }\n"};
  EXPECT_EQ(unit_shapes({sizes[0]}, {"run_a", "run_b"}, other), "size0 run_a_n=4096 run_b_m=7 run_b_n=128\n");
}

}  // namespace
}  // namespace kernelblaster::rewrite
