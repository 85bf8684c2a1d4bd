// Which launches a harness's sizes reach (search/launch_reach.h): a launcher
// that picks its tile by the sizes it is given, as SGEMM_CUDA's do, and a
// harness whose sizes all take one branch.
#include "search/launch_reach.h"

#include <gtest/gtest.h>

using namespace kernelblaster::search;

namespace {

const char* kSource =
    "template <int BM, int BK> __global__ void k(int M, float *C) { C[blockIdx.x * BM + threadIdx.x] = BK; }\n"
    "void run(int M, int N, float *C) {\n"
    "  const uint BK = 8;\n"
    "  if (M >= 128 and N >= 128) {\n"
    "    const uint BM = 128;\n"
    "    k<BM, BK><<<dim3(M / BM), dim3(BM)>>>(M, C);\n"
    "  } else if (M >= 32) {\n"
    "    const uint BM = 32;\n"
    "    k<BM, BK><<<dim3(M / BM), dim3(BM)>>>(M, C);\n"
    "  } else {\n"
    "    const uint BM = 16;\n"
    "    k<BM, BK><<<dim3(M / BM), dim3(BM)>>>(M, C);\n"
    "  }\n"
    "}\n";

std::string harness(const std::string& sizes) {
  return "#include <kernelblaster/harness.h>\n"
         "void run(int M, int N, float * C);\n"
         "int main(int argc, char** argv) {\n"
         "  using namespace kernelblaster;\n"
         "  Harness h(\"run\");\n"
         "  h" + sizes + "\n"
         "      .inout(\"C\", DType::f32, {\"C_elements\"})\n"
         "      .launch([](Call& c) {\n"
         "        run(\n"
         "            static_cast<int>(c.dim(\"M\")),\n"
         "            static_cast<int>(c.dim(\"N\")),\n"
         "            c.out<float>(\"C\"));\n"
         "      });\n"
         "  return h.main(argc, argv);\n"
         "}\n";
}

std::string name_at(const LaunchTunables& found, const std::string& written_as, int line) {
  for (const FoundTunable& t : found.tunables)
    if (t.written_as == written_as && t.line == line) return t.tunable.name;
  return "?";
}

}  // namespace

TEST(LaunchReach, BranchesNoSizeTakesAreLeftAsWritten) {
  const LaunchTunables found = find_launch_tunables(kSource, "/p/run.cu", SpaceDecl{}, {});
  const LaunchReach r = launch_reach(
      harness(".size(\"size0\", {{\"M\", 4096}, {\"N\", 4096}, {\"C_elements\", 4096}})\n"
              "      .validation_size(\"validation\", {{\"M\", 128}, {\"N\", 128}, {\"C_elements\", 128}})"),
      kSource, found);
  EXPECT_EQ(r.unreached, (std::vector<int>{9, 12}));
  // BK shapes the unreached launches too: a value for it would reach them unverified.
  EXPECT_EQ(r.left, (std::vector<std::string>{name_at(found, "BK", 3), name_at(found, "BM", 11), name_at(found, "BM", 8)}));
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0],
            "the launch at line 9 in run runs for no size of the harness (!(M >= 128 and N >= 128) && (M >= 32)): "
            "its tunables stay as written");
  EXPECT_EQ(r.notes[1].rfind("the launch at line 12 in run runs for no size of the harness "
                             "(!(M >= 128 and N >= 128) && !(M >= 32)):", 0), 0u) << r.notes[1];
}

TEST(LaunchReach, ASizeOnEachBranchReachesEveryLaunch) {
  const LaunchTunables found = find_launch_tunables(kSource, "/p/run.cu", SpaceDecl{}, {});
  const LaunchReach r = launch_reach(
      harness(".size(\"size0\", {{\"M\", 4096}, {\"N\", 4096}, {\"C_elements\", 4096}})\n"
              "      .size(\"size1\", {{\"M\", 64}, {\"N\", 64}, {\"C_elements\", 64}})\n"
              "      .validation_size(\"validation\", {{\"M\", 16}, {\"N\", 16}, {\"C_elements\", 16}})"),
      kSource, found);
  EXPECT_TRUE(r.unreached.empty());
  EXPECT_TRUE(r.left.empty());
}

TEST(LaunchReach, AConditionOnAnythingButTheLaunchersSizesCountsAsReached) {
  const std::string source = std::string(kSource).replace(std::string(kSource).find("M >= 32"), 7, "use_small()");
  const LaunchTunables found = find_launch_tunables(source, "/p/run.cu", SpaceDecl{}, {});
  const LaunchReach r = launch_reach(harness(".size(\"size0\", {{\"M\", 4096}, {\"N\", 4096}, {\"C_elements\", 4096}})"),
                                     source, found);
  EXPECT_TRUE(r.unreached.empty()) << r.notes.front();
  // A harness that does not call the launcher says nothing of its launches.
  EXPECT_TRUE(launch_reach("int main() { return 0; }\n", kSource, found).unreached.empty());
}
