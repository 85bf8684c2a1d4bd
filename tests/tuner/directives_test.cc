#include "tuner/directives.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tuner/flag_space.h"
#include "tuner/manifest_space.h"

using namespace kernelblaster::tuner;

namespace {

const char* kSource = R"(// a kernel
// kernelblaster: tunable BLOCK_SIZE 64 128 256 512 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256  // power of two
#endif
//   kernelblaster: tunable ITEMS_PER_THREAD 2 4
#ifndef ITEMS_PER_THREAD
#  define ITEMS_PER_THREAD 1
#endif
// kernelblaster: constraint BLOCK_SIZE * ITEMS_PER_THREAD <= 1024
__global__ void k() {}
)";

std::string error_of(const std::string& text) {
  try {
    parse_directives(text, "k.cu", "sm_90");
  } catch (const SpaceError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Directives, ParsesTunablesDefaultsAndConstraints) {
  SpaceDecl d = parse_directives(kSource, "k.cu", "sm_90");
  ASSERT_EQ(d.tunables.size(), 2u);
  EXPECT_EQ(d.tunables[0].name, "BLOCK_SIZE");
  EXPECT_EQ(d.tunables[0].default_value, "256");
  EXPECT_EQ(d.tunables[0].values, (std::vector<std::string>{"64", "128", "256", "512"}));
  EXPECT_EQ(d.tunables[0].technique, "block_size_adaptation");
  EXPECT_EQ(d.tunables[0].origin, "k.cu:2");
  // The default joins the list when the list lacks it; the technique is inferred.
  EXPECT_EQ(d.tunables[1].default_value, "1");
  EXPECT_EQ(d.tunables[1].values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(d.tunables[1].technique, "thread_coarsening");
  ASSERT_EQ(d.constraints.size(), 1u);
  EXPECT_EQ(d.constraints[0].text(), "BLOCK_SIZE * ITEMS_PER_THREAD <= 1024");
  EXPECT_FALSE(d.flags_declared);
}

TEST(Directives, MalformedDirectivesAreOneLineWithFileAndLine) {
  EXPECT_EQ(error_of("// kernelblaster: tunable\n"), "k.cu:1: tunable needs a macro name and values");
  EXPECT_EQ(error_of("\n// kernelblaster: tunable X\n#ifndef X\n#define X 1\n#endif\n"),
            "k.cu:2: tunable X lists no values");
  EXPECT_EQ(error_of("// kernelblaster: tunable X 1 2\n"), "k.cu:1: tunable X has no '#define X VALUE' in the source");
  EXPECT_EQ(error_of("// kernelblaster: tunable X 1 2\n#define X 1\n"),
            "k.cu:1: the #define of X must sit under '#ifndef X' so candidates can override it");
  EXPECT_EQ(error_of("// kernelblaster: tunable X 1 1\n#ifndef X\n#define X 1\n#endif\n"),
            "k.cu:1: value '1' of X is listed twice");
  EXPECT_EQ(error_of("// kernelblaster: tunable 3X 1\n"), "k.cu:1: '3X' is not a macro name");
  EXPECT_EQ(error_of("// kernelblaster: constraint A <= (2\n"), "k.cu:1: constraint 'A <= (2': column 8: expected ')'");
  EXPECT_EQ(error_of("// kernelblaster: tunabel X 1\n"),
            "k.cu:1: unknown kernelblaster directive 'tunabel' (known: tunable, constraint, flags, discover)");
  EXPECT_EQ(error_of("// kernelblaster: constraint Y > 1\n"),
            "k.cu: constraint 'Y > 1' names 'Y', which is not a tunable");
  EXPECT_EQ(error_of("// kernelblaster: flags maxrregcount=8\n"),
            "k.cu:1: maxrregcount value '8' is not a register count in 16..255");
  EXPECT_EQ(error_of("// kernelblaster: flags turbo\n"),
            "k.cu:1: unknown flag dimension 'turbo' (known: fast_math, maxrregcount, dlcm, arch)");
  std::string twice = "// kernelblaster: tunable X 1 2\n#ifndef X\n#define X 1\n#endif\n// kernelblaster: tunable X 3\n";
  EXPECT_EQ(error_of(twice), "k.cu:5: tunable X is declared twice");
}

TEST(Directives, FlagsDirective) {
  SpaceDecl none = parse_directives("// kernelblaster: flags none\n", "k.cu", "sm_90");
  EXPECT_TRUE(none.flags_declared);
  EXPECT_TRUE(none.flags.empty());
  SpaceDecl some = parse_directives("// kernelblaster: flags fast_math maxrregcount=32,64 dlcm=ca,cg arch\n", "k.cu", "sm_90");
  ASSERT_EQ(some.flags.size(), 4u);
  EXPECT_EQ(some.flags[1].values, (std::vector<std::string>{"", "--maxrregcount=32", "--maxrregcount=64"}));
  EXPECT_EQ(some.flags[2].values, (std::vector<std::string>{"", "-Xptxas=-dlcm=ca", "-Xptxas=-dlcm=cg"}));
  EXPECT_EQ(some.flags[3].values, (std::vector<std::string>{"", "-arch=sm_90a"}));
  EXPECT_EQ(some.flags[0].values, (std::vector<std::string>{"", "-use_fast_math"}));  // the whole, as always
  // No arch-specific variant before sm_90: the dimension disappears.
  EXPECT_EQ(parse_directives("// kernelblaster: flags arch\n", "k.cu", "sm_80").flags.size(), 0u);
  SpaceDecl parts = parse_directives("// kernelblaster: flags fast_math=ftz,all\n", "k.cu", "sm_90");
  EXPECT_EQ(parts.flags[0].values, (std::vector<std::string>{"", "-ftz=true", "-use_fast_math"}));
  EXPECT_EQ(error_of("// kernelblaster: flags fast_math=fastest\n"),
            "k.cu:1: fast_math value 'fastest' is not one of ftz, prec_div, prec_sqrt, all");
}

TEST(Flags, DefaultsAndTechniques) {
  EXPECT_EQ(default_flag_dimensions("sm_90").size(), 4u);
  // Fast math and each of its parts alone.
  EXPECT_EQ(default_flag_dimensions("sm_90")[0].values,
            (std::vector<std::string>{"", "-ftz=true", "-prec-div=false", "-prec-sqrt=false", "-use_fast_math"}));
  for (const char* part : {"-ftz=true", "--prec-div=false", "-prec-sqrt=false"}) EXPECT_EQ(flag_technique(part), "fast_math");
  EXPECT_EQ(default_flag_dimensions("sm_86").size(), 3u);
  EXPECT_EQ(arch_specific_variant("sm_100"), "sm_100a");
  EXPECT_EQ(arch_specific_variant("sm_90a"), "");
  EXPECT_EQ(flag_technique("-use_fast_math"), "fast_math");
  EXPECT_EQ(flag_technique("--maxrregcount=64"), "register_pressure_reduction");
  EXPECT_EQ(flag_technique("-Xptxas=-dlcm=cg"), "cache_policy_flags");
  EXPECT_EQ(flag_technique("-arch=sm_90a"), "arch_specific_codegen");
  EXPECT_EQ(infer_technique("UNROLL"), "loop_unrolling");
  EXPECT_EQ(infer_technique("TILE"), "block_size_adaptation");
  EXPECT_EQ(infer_technique("VEC_WIDTH"), "thread_coarsening");
  EXPECT_EQ(infer_technique("ALPHA"), "parameter_tuning");
}

TEST(Manifest, TunablesAndConstraintsFromCMake) {
  std::string path = (std::filesystem::temp_directory_path() / "kb_search_manifest_test.json").string();
  std::ofstream(path) << R"({"arch": "sm_90", "tunables": [{"name": "UNROLL", "values": [1, 2, "4"]},
      {"name": "WARPS", "values": ["4", "8"], "technique": "block_size_adaptation"}],
      "constraints": ["UNROLL * WARPS <= 16"]})";
  SpaceDecl d = parse_directives(kSource, "k.cu", "sm_90");
  add_manifest_space(d, path, kSource, "k.cu", {"WARPS=8"});
  ASSERT_EQ(d.tunables.size(), 4u);
  EXPECT_EQ(d.tunables[2].name, "UNROLL");
  EXPECT_EQ(d.tunables[2].default_value, "1");  // no #define, no -D: the first value
  EXPECT_EQ(d.tunables[2].technique, "loop_unrolling");
  EXPECT_EQ(d.tunables[3].default_value, "8");  // from the -D list
  EXPECT_EQ(d.constraints.size(), 2u);
  std::ofstream(path) << R"({"tunables": [{"name": "BLOCK_SIZE", "values": [64]}]})";
  SpaceDecl again = parse_directives(kSource, "k.cu", "sm_90");
  EXPECT_THROW(add_manifest_space(again, path, kSource, "k.cu", {}), SpaceError);  // declared twice
  std::ofstream(path) << R"({"tunables": [{"name": "Q"}]})";
  try {
    SpaceDecl e;
    add_manifest_space(e, path, "", "k.cu", {});
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": tunables[0] (Q) needs a non-empty list 'values'");
  }
  std::filesystem::remove(path);
}

TEST(Examples, DeclaredSpacesKeepTodaysDefaults) {
  // The shipped examples compile exactly as before: each default is the old #define.
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"softmax", {"BLOCK_SIZE", "256"}}, {"rmsnorm", {"BLOCK_SIZE", "256"}}, {"vector_add", {"BLOCK_SIZE", "256"}},
      {"transpose", {"TILE", "16"}},      {"matmul", {"TILE", "16"}}};
  for (const auto& [name, tunable] : expected) {
    std::ifstream in(std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src/" + name + ".cu");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SpaceDecl d = parse_directives(text, name + ".cu", "sm_90");
    ASSERT_FALSE(d.tunables.empty()) << name;
    EXPECT_EQ(d.tunables[0].name, tunable.first) << name;
    EXPECT_EQ(d.tunables[0].default_value, tunable.second) << name;
  }
}
