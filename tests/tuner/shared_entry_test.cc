// What a result kept outside a run may carry into a build (issue 74): the
// tuner's own flags and plain settings, nothing else.
#include "tuner/shared_entry.h"

#include <gtest/gtest.h>

using namespace kernelblaster::tuner;

TEST(SharedEntry, OnlyFlagsTheTunerSetsPass) {
  for (const char* f : {"-use_fast_math", "-ftz=true", "-prec-div=false", "-prec-sqrt=false", "--maxrregcount=64",
                        "--maxrregcount=16", "--maxrregcount=255", "-Xptxas=-dlcm=cg", "-Xptxas=-dlcm=cs", "-arch=sm_90a"})
    EXPECT_TRUE(tuner_sets_flag(f, "sm_90")) << f;
  for (const char* f : {"--compiler-bindir=/tmp/x", "-ccbin=/tmp/x", "-Xcompiler=-fplugin=/tmp/p.so",
                        "--maxrregcount=8", "--maxrregcount=1000", "--maxrregcount=64;x", "-Xptxas=-dlcm=xx",
                        "-arch=sm_80a", "-use_fast_math ", "", "-O3", "--run", "-Xlinker=--wrap=malloc"})
    EXPECT_FALSE(tuner_sets_flag(f, "sm_90")) << f;
  EXPECT_FALSE(tuner_sets_flag("-arch=sm_90a", "sm_80"));  // no arch-specific variant before sm_90
}

TEST(SharedEntry, DefinesAndPreludeLinesArePlainSettings) {
  EXPECT_EQ(entry_refusal({"-use_fast_math"}, {{"BLOCK", "128"}, {"KERNELBLASTER_BM_L198", "64"}, {"T", "float"}},
                          "#undef BLOCK\n#define BLOCK 128\n\n", "sm_90"),
            "");
  EXPECT_EQ(entry_refusal({"-O3"}, {}, "", "sm_90"), "flag '-O3' is not one the tuner sets for sm_90");
  EXPECT_EQ(entry_refusal({}, {{"BLOCK", "1); system(\"id\""}}, "", "sm_90"),
            "define BLOCK's value '1); system(\"id\"' is not one plain token");
  EXPECT_EQ(entry_refusal({}, {{"2X", "1"}}, "", "sm_90"), "define name '2X' is not an identifier");
  EXPECT_EQ(entry_refusal({}, {}, "#include \"/etc/passwd\"\n", "sm_90"),
            "prelude line '#include \"/etc/passwd\"' is neither a plain #define nor an #undef");
  EXPECT_EQ(entry_refusal({}, {}, "#define A 1 + 2\n", "sm_90"),
            "prelude line '#define A 1 + 2' is neither a plain #define nor an #undef");
  EXPECT_EQ(entry_refusal({}, {}, "#define A x;y\n", "sm_90"),
            "prelude line '#define A x;y': define A's value 'x;y' is not one plain token");
}

namespace {

Tunable tunable(const std::string& name, std::vector<std::string> values, const std::string& default_value) {
  Tunable t;
  t.name = name;
  t.values = std::move(values);
  t.default_value = default_value;
  return t;
}

}  // namespace

// Each define names a tunable this build reads in the source, holds one of
// its values, and the whole (the rest at the source's values) keeps every
// constraint the source states.
TEST(SharedEntry, SettingsAreTheSourcesTunablesInTheirDomainsAndConstraints) {
  SpaceDecl decl;
  decl.tunables = {tunable("BLOCK", {"64", "128", "256"}, "256"), tunable("ITEMS", {"1", "2", "4"}, "1"),
                   tunable("T", {"float", "double"}, "float")};
  decl.constraints.emplace_back("BLOCK * ITEMS <= 512");
  EXPECT_EQ(settings_refusal(decl, {{"BLOCK", "128"}, {"ITEMS", "4"}, {"T", "double"}}), "");
  EXPECT_EQ(settings_refusal(decl, {{"GRID", "4"}}), "define GRID names no tunable this build finds in the source");
  EXPECT_EQ(settings_refusal(decl, {{"BLOCK", "96"}}), "define BLOCK=96 is not one of its values");
  EXPECT_EQ(settings_refusal(decl, {{"ITEMS", "4"}}), "the settings break the constraint 'BLOCK * ITEMS <= 512'");
  EXPECT_EQ(settings_refusal(decl, {}), "");
}

TEST(SharedEntry, APreludesDefinesAreSettingsToo) {
  const auto s = entry_settings({{"BLOCK", "128"}}, "#undef BLOCK\n#define BLOCK 128\n#define ITEMS 2\n");
  EXPECT_EQ(s, (std::vector<std::pair<std::string, std::string>>{{"BLOCK", "128"}, {"ITEMS", "2"}}));
}
