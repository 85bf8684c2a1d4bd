#include "tuner/shape_guard.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cubin.h"
#include "tuner/candidate_source.h"
#include "tuner/config_space.h"
#include "tuner/launch_tunables.h"

using namespace kernelblaster::tuner;
namespace fs = std::filesystem;

namespace {

// A harness as `harness synth` writes it: three sizes, two timed, and the
// launcher's parameters passed as dimensions.
const char* kHarness = R"(#include <kernelblaster/harness.h>
void run_tiles(int M, int N, float* C);
int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("run_tiles");
  h.size("call2", {{"M", 4096}, {"N", 4096}, {"C_elements", 16777216}})
      .size("call1", {{"M", 2048}, {"N", 2048}, {"C_elements", 16777216}})
      .validation_size("call0", {{"M", 128}, {"N", 128}, {"C_elements", 16777216}})
      .inout("C", DType::f32, {"C_elements"}, Distribution::normal(0, 1))
      .launch([](Call& c) {
        run_tiles(
            static_cast<int>(c.dim("M")),
            static_cast<int>(c.dim("N")),
            c.out<float>("C"));
      });
  return h.main(argc, argv);
}
)";

// A host program shaped as the tuner's copy of a launcher: the tunable's
// default under #ifndef, the #line back to the user's file, the launcher
// reading it through a const local. It prints the tile each call used.
std::string host_copy(const std::string& path) {
  return "#ifndef KERNELBLASTER_TILE_L4\n#define KERNELBLASTER_TILE_L4 32\n#endif\n" + line_directive(path) +
         R"(#include <cstdio>
#include <initializer_list>
int used = 0;
// the launcher
void run_tiles(int M, int N, float* C) {
  const int TILE = KERNELBLASTER_TILE_L4;
  used = TILE + 0 * M * N;
  if (C) C[0] = 0;
}
int main() {
  for (int n : {128, 2048, 4096, 300}) {
    run_tiles(n, n, nullptr);
    std::printf("%d:%d\n", n, used);
  }
  return 0;
}
)";
}

std::string run_output(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  return out;
}

}  // namespace

// The launcher runs as written (TILE 32) at the slower recorded shape only;
// the other recorded shapes and an unrecorded one get the winner's 64. Built
// and run, not read.
TEST(ShapeGuard, TheLauncherRunsAsWrittenAtTheSlowerShapesOnly) {
  const fs::path dir = fs::temp_directory_path() / "kb_shape_guard_host";
  fs::create_directories(dir);
  const std::string path = (dir / "tiles.cc").string();
  const std::string tuned = "#define KERNELBLASTER_TILE_L4 64\n" + host_copy(path);
  const ShapeGuard g = guard_slower_shapes({tuned, kHarness, {{"KERNELBLASTER_TILE_L4", "32"}}, {"call0"}});
  ASSERT_FALSE(g.text.empty()) << g.why_not;
  EXPECT_EQ(g.functions, std::vector<std::string>{"run_tiles"});
  EXPECT_EQ(g.sizes, std::vector<std::string>{"call0"});
  EXPECT_NE(g.text.find("if ((M == 128 && N == 128)) return run_tiles_kernelblaster_as_written(M, N, C);"),
            std::string::npos)
      << g.text;
  std::ofstream(dir / "guarded.cc") << g.text;
  const std::string exe = (dir / "guarded").string();
  ASSERT_EQ(std::system(("c++ -std=c++17 -o " + exe + " " + (dir / "guarded.cc").string()).c_str()), 0) << g.text;
  EXPECT_EQ(run_output(exe), "128:32\n2048:64\n4096:64\n300:64\n");
  // Lines still point at the user's file: a line after the launcher is where it was.
  std::ofstream(dir / "broken.cc") << [&] {
    std::string t = g.text;
    t.replace(t.find("int main() {"), 12, "int main() { undefined_name;");
    return t;
  }();
  const std::string err = run_output("c++ -std=c++17 -fsyntax-only " + (dir / "broken.cc").string() + " 2>&1");
  EXPECT_NE(err.find("tiles.cc:10:"), std::string::npos) << err;
  fs::remove_all(dir);
}

// Through the real copy of a tiled launcher (const locals feeding template
// arguments and dim3s, a branch on the size): the guarded source compiles
// with nvcc, and the as-written copy has the original's values.
TEST(ShapeGuard, AGuardedTiledLauncherCompiles) {
  if (!fs::exists(test_support::kNvcc)) GTEST_SKIP() << "no nvcc";
  const char* source = R"(#include <cuda_runtime.h>
template <int TILE, int STEPS>
__global__ void tiles(int M, int N, float* C) {
  __shared__ float s[TILE * STEPS];
  int i = blockIdx.x * TILE + threadIdx.x;
  s[threadIdx.x] = 1.0f;
  if (i < M * N) C[i] = s[threadIdx.x % (TILE * STEPS)];
}

void run_tiles(int M, int N, float* C) {
  const int STEPS = 2;
  const int TILE = 128;
  dim3 grid((M * N + TILE - 1) / TILE);
  tiles<TILE, STEPS><<<grid, TILE>>>(M, N, C);
}
)";
  const fs::path dir = fs::temp_directory_path() / "kb_shape_guard_nvcc";
  fs::create_directories(dir);
  const std::string path = (dir / "tiles.cu").string();
  const LaunchTunables found = find_launch_tunables(source, path, {}, {});
  std::string tile;
  for (const FoundTunable& t : found.tunables)
    if (t.written_as == "TILE") tile = t.tunable.name;
  ASSERT_FALSE(tile.empty());
  Configuration winner;
  winner.settings.push_back({tile, "256", "block_size_adaptation", false});
  const std::string tuned = candidate_source(found.text, path, winner);
  const ShapeGuard g = guard_slower_shapes({tuned, kHarness, {{tile, "128"}}, {"call1", "call0"}});
  ASSERT_FALSE(g.text.empty()) << g.why_not;
  EXPECT_EQ(g.sizes, (std::vector<std::string>{"call1", "call0"}));
  EXPECT_NE(g.text.find("#pragma push_macro(\"" + tile + "\")\n#undef " + tile + "\n#define " + tile + " 128\n"),
            std::string::npos)
      << g.text;
  EXPECT_NE(g.text.find("(M == 2048 && N == 2048) || (M == 128 && N == 128)"), std::string::npos) << g.text;
  std::ofstream(dir / "guarded.cu") << g.text;
  EXPECT_FALSE(test_support::cubin_of(dir, "guarded").empty());
  fs::remove_all(dir);
}

// What cannot be guarded is said, and nothing is written.
TEST(ShapeGuard, SaysWhyNotAndWritesNothing) {
  const std::string path = "/src/tiles.cc";
  const std::string tuned = "#define KERNELBLASTER_TILE_L4 64\n" + host_copy(path);
  const std::vector<std::pair<std::string, std::string>> changed = {{"KERNELBLASTER_TILE_L4", "32"}};
  // Nothing slower: nothing to do, nothing to say.
  ShapeGuard g = guard_slower_shapes({tuned, kHarness, changed, {}});
  EXPECT_TRUE(g.text.empty());
  EXPECT_TRUE(g.why_not.empty());
  // A value a kernel reads.
  std::string kernel = tuned;
  kernel.replace(kernel.find("// the launcher"), 15, "__global__ void k(float* c) { c[0] = KERNELBLASTER_TILE_L4; }");
  g = guard_slower_shapes({kernel, kHarness, changed, {"call0"}});
  EXPECT_TRUE(g.text.empty());
  EXPECT_EQ(g.why_not, "k is a kernel or device function");
  // A template launcher.
  std::string templ = tuned;
  templ.replace(templ.find("void run_tiles(int M"), 4, "template <int X> void");
  g = guard_slower_shapes({templ, kHarness, changed, {"call0"}});
  EXPECT_EQ(g.why_not, "run_tiles is a template");
  // A harness that passes the launcher no size.
  std::string no_dims = kHarness;
  no_dims.replace(no_dims.find("static_cast<int>(c.dim(\"M\"))"), 29, "7");
  no_dims.replace(no_dims.find("static_cast<int>(c.dim(\"N\"))"), 29, "7");
  g = guard_slower_shapes({tuned, no_dims, changed, {"call0"}});
  EXPECT_EQ(g.why_not, "the harness passes run_tiles no size that tells the slower shapes apart");
  // A slower shape that a faster one shares every guarded value with is left to the winner.
  std::string same = kHarness;
  same.replace(same.find("{\"M\", 2048}, {\"N\", 2048}"), 24, "{\"M\", 128}, {\"N\", 128}");
  g = guard_slower_shapes({tuned, same, changed, {"call0"}});
  EXPECT_TRUE(g.text.empty());
}


// Two launchers in a namespace, one with a default argument, each read by
// its own tunable: both are guarded, each at its own slower shape, and the
// program still builds and runs both ways.
TEST(ShapeGuard, LaunchersInANamespaceAreGuardedEachByItsOwnValues) {
  const fs::path dir = fs::temp_directory_path() / "kb_shape_guard_ns";
  fs::create_directories(dir);
  const std::string path = (dir / "two.cc").string();
  const std::string copy = "#ifndef KB_A\n#define KB_A 1\n#endif\n#ifndef KB_B\n#define KB_B 10\n#endif\n" +
                           line_directive(path) + R"(#include <cstdio>
#include <initializer_list>
namespace lib {
int used_a = 0, used_b = 0;
static void run_a(int M, float* C = nullptr) {
  const int A = KB_A;
  used_a = A + 0 * M;
  (void)C;
}
void run_b(int M) { const int B = KB_B; used_b = B + 0 * M; }
}  // namespace lib
int main() {
  for (int m : {128, 4096}) {
    lib::run_a(m);
    lib::run_b(m);
    std::printf("%d:%d,%d\n", m, lib::used_a, lib::used_b);
  }
  return 0;
}
)";
  const std::string tuned = "#define KB_A 2\n#define KB_B 20\n" + copy;
  std::string harness = kHarness;
  harness.replace(harness.find("void run_tiles(int M, int N, float* C);"), 39,
                  "namespace lib { void run_a(int M, float* C); void run_b(int M); }");
  harness.replace(harness.find("        run_tiles("), 0, "        lib::run_b(static_cast<int>(c.dim(\"M\")));\n");
  harness.replace(harness.find("run_tiles(\n"), 9, "lib::run_a");
  harness.replace(harness.find("            static_cast<int>(c.dim(\"N\")),\n"), 42, "");
  // run_a slower at 128 (call0); run_b slower at 4096 (call2).
  ShapeGuard g = guard_slower_shapes({tuned, harness, {{"KB_A", "1"}}, {"call0"}});
  ASSERT_FALSE(g.text.empty()) << g.why_not << "\n" << harness;
  g = guard_slower_shapes({g.text, harness, {{"KB_B", "10"}}, {"call2"}});
  ASSERT_FALSE(g.text.empty()) << g.why_not;
  EXPECT_EQ(g.functions, std::vector<std::string>{"run_b"});
  std::ofstream(dir / "guarded.cc") << g.text;
  const std::string exe = (dir / "guarded").string();
  ASSERT_EQ(std::system(("c++ -std=c++17 -o " + exe + " " + (dir / "guarded.cc").string()).c_str()), 0) << g.text;
  EXPECT_EQ(run_output(exe), "128:1,20\n4096:2,10\n");
  fs::remove_all(dir);
}
