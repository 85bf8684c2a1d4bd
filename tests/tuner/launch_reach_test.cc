// Which launches a harness's sizes reach (tuner/launch_reach.h): a launcher
// that picks its tile by the sizes it is given, as SGEMM_CUDA's do, and a
// harness whose sizes all take one branch.
#include "tuner/launch_reach.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "run_harness.h"

#include "tuner/harness_space.h"

using namespace kernelblaster::tuner;

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

std::string harness(const std::string& sizes) { return run_harness(sizes); }

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
  // Each branch has its own BK (declared above the branches, read only in
  // them): the unreached launches' stay as written, the reached one's is
  // searched.
  EXPECT_EQ(r.left, (std::vector<std::string>{name_at(found, "BK", 10), name_at(found, "BK", 7),
                                              name_at(found, "BM", 11), name_at(found, "BM", 8)}));
  EXPECT_NE(name_at(found, "BK", 4), "?");
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

namespace {

// Two launchers and a helper: a synthesized harness made from run_a's
// recorded calls calls run_a alone, and run_a calls the helper; kc is
// launched from another file.
const char* kTwoLaunchers =
    "#define WIDTH 64\n"
    "__global__ void ka(float *C) { C[threadIdx.x] = 1; }\n"
    "__global__ void kb(float *C) { C[threadIdx.x] = 2; }\n"
    "__global__ void kc(float *C) { C[0] = WIDTH; }\n"
    "void helper(float *C) {\n"
    "  const int T = 128;\n"
    "  ka<<<1, T>>>(C);\n"
    "}\n"
    "void run_a(float *C) {\n"
    "  ka<<<1, WIDTH>>>(C);\n"
    "  helper(C);\n"
    "}\n"
    "void run_b(float *C) {\n"
    "  const int TB = 32;\n"
    "  kb<<<1, TB>>>(C);\n"
    "}\n";

std::string synthesized(const std::string& calls) {
  return "// Harness for run_a (/p/two.cu), synthesized by `kernelblaster harness synth`\n"
         "#include <kernelblaster/harness.h>\n"
         "void run_a(float * C);\n"
         "int main(int argc, char** argv) {\n"
         "  kernelblaster::Harness h(\"two\");\n"
         "  h.launch([](kernelblaster::Call& c) { " + calls + " });\n"
         "  return h.main(argc, argv);\n"
         "}\n";
}

}  // namespace

// A synthesized harness calls only the launchers it was made from (and what
// they call): the other launcher's sites run in no call, and their tunables
// stay as written; a user's own harness may reach it through other files.
TEST(LaunchReach, ASynthesizedHarnessReachesOnlyWhatItsLaunchersCall) {
  const LaunchTunables found = find_launch_tunables(kTwoLaunchers, "/p/two.cu", SpaceDecl{}, {});
  ASSERT_EQ(found.sites.size(), 3u);
  const LaunchReach r = launch_reach(synthesized("run_a(c.out<float>(\"C\"));"), kTwoLaunchers, found);
  EXPECT_TRUE(r.called_known);
  EXPECT_EQ(r.called, (std::vector<std::string>{"helper", "ka", "run_a"}));
  EXPECT_EQ(r.unreached, (std::vector<int>{15}));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "the launches in run_b run in no call of the harness (it calls helper, ka, run_a): "
                        "their tunables stay as written");
  // WIDTH shapes run_a's launch, and kc (launched by no function here) reads it.
  EXPECT_EQ(r.read_uncalled, (std::vector<std::string>{"WIDTH"}));
  // "run_a_v2(" is no call of run_a.
  std::string other = synthesized("run_a_v2(c.out<float>(\"C\"));");
  other.replace(other.find("void run_a("), 10, "void run_a_v2(");
  const LaunchReach none = launch_reach(other, kTwoLaunchers, found);
  EXPECT_EQ(none.unreached.size(), 3u);
  const std::string own = synthesized("run_a(c.out<float>(\"C\"));").substr(std::string("// Harness").size());
  EXPECT_TRUE(launch_reach(own.substr(own.find('\n') + 1), kTwoLaunchers, found).unreached.empty());
}

// Where the build says the harness runs only part of the source, only the
// groups it runs whole are searched: not a `#define` a kernel it never runs
// reads (kc, launched from another file, reads WIDTH), not the other
// launcher's constants.
TEST(LaunchReach, APartialHarnessSearchesOnlyTheGroupsItRunsWhole) {
  const SourceSpace found = source_space({kTwoLaunchers, "/p/two.cu", "sm_90", "", {}, {}});
  auto names = [](const SpaceDecl& d) {
    std::vector<std::string> out;
    for (const Tunable& t : d.tunables) out.push_back(t.name);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& part) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
  };
  const std::string harness = synthesized("run_a(c.out<float>(\"C\"));");
  SpaceDecl whole = found.decl;
  harness_space(harness, found, kTwoLaunchers, "/p/two.cu", {}, whole);
  EXPECT_TRUE(has(names(whole), "WIDTH")) << "the whole file may change: WIDTH is searched";
  EXPECT_FALSE(has(names(whole), "TB")) << "run_b runs in no call";
  SpaceDecl part = found.decl;
  const HarnessSpace hs = harness_space(harness, found, kTwoLaunchers, "/p/two.cu", {}, part, true);
  const std::vector<std::string> kept = names(part);
  EXPECT_TRUE(has(kept, "_T_")) << "helper's block, which run_a's call runs";
  EXPECT_FALSE(has(kept, "WIDTH"));
  EXPECT_FALSE(has(kept, "TB"));
  for (const Tunable& t : part.tunables) EXPECT_FALSE(t.group.empty()) << t.name;
  ASSERT_FALSE(hs.lines.empty());
  EXPECT_NE(hs.lines.back().find("the harness runs only part of this source"), std::string::npos) << hs.lines.back();
}

// A `#define` a header reads is left as written where the harness runs part
// of the source: whether the header's reader runs is not known.
TEST(LaunchReach, APartialHarnessLeavesADefineAHeaderReads) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kb_reach_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "wide.cuh") << "__global__ void kw(float *C) { C[0] = DEPTH; }\n";
  }
  const std::string text = std::string("#define DEPTH 8\n#include \"wide.cuh\"\n") +
                           "__global__ void kd(float *C) { C[threadIdx.x] = 1; }\n"
                           "void run_a(float *C) {\n"
                           "  kd<<<1, DEPTH * 32>>>(C);\n"
                           "}\n";
  const std::string source = (dir / "two.cu").string();
  const SourceSpace found = source_space({text, source, "sm_90", "", {}, {}});
  auto has_depth = [](const SpaceDecl& d) {
    return std::any_of(d.tunables.begin(), d.tunables.end(),
                       [](const Tunable& t) { return t.name.find("DEPTH") != std::string::npos; });
  };
  ASSERT_TRUE(has_depth(found.decl));
  SpaceDecl whole = found.decl, part = found.decl;
  harness_space(synthesized("run_a(c.out<float>(\"C\"));"), found, text, source, {}, whole);
  harness_space(synthesized("run_a(c.out<float>(\"C\"));"), found, text, source, {}, part, true);
  EXPECT_TRUE(has_depth(whole));
  EXPECT_FALSE(has_depth(part));
  std::filesystem::remove_all(dir);
}

// A helper a launcher calls only in a branch no size takes runs in no call
// of a synthesized harness either: its launch's tunables stay as written.
TEST(LaunchReach, AHelperCalledOnlyInABranchNoSizeTakesIsNotReached) {
  const std::string source =
      "__global__ void k(float *C) { C[threadIdx.x] = 1; }\n"
      "void big(float *C) {\n"
      "  const int TB = 256;\n"
      "  k<<<1, TB>>>(C);\n"
      "}\n"
      "void small(float *C) {\n"
      "  const int TS = 64;\n"
      "  k<<<1, TS>>>(C);\n"
      "}\n"
      "void run(int M, int N, float *C) {\n"
      "  if (M >= 128) {\n"
      "    big(C);\n"
      "  } else {\n"
      "    small(C);\n"
      "  }\n"
      "}\n";
  const LaunchTunables found = find_launch_tunables(source, "/p/run.cu", SpaceDecl{}, {});
  const std::string h = "// Harness for run (/p/run.cu), synthesized by `kernelblaster harness synth`\n" +
                        harness(".size(\"size0\", {{\"M\", 4096}, {\"N\", 4096}, {\"C_elements\", 4096}})");
  const LaunchReach r = launch_reach(h, source, found);
  EXPECT_EQ(r.called, (std::vector<std::string>{"big", "k", "run"}));
  EXPECT_EQ(r.unreached, (std::vector<int>{8}));
  ASSERT_EQ(r.left.size(), 1u);
  EXPECT_NE(r.left[0].find("TS"), std::string::npos) << r.left[0];
  // A size that takes the `else` reaches it.
  const std::string both = "// Harness for run (/p/run.cu), synthesized by `kernelblaster harness synth`\n" +
                           harness(".size(\"size0\", {{\"M\", 4096}, {\"N\", 4096}, {\"C_elements\", 4096}})\n"
                                   "      .validation_size(\"v\", {{\"M\", 64}, {\"N\", 64}, {\"C_elements\", 64}})");
  EXPECT_TRUE(launch_reach(both, source, found).unreached.empty());
}
