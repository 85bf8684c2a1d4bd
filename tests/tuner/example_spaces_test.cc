// The spaces the shipped examples declare, as `kernelblaster tune` would
// enumerate them on sm_90: small enough to record exhaustively, sharing the
// VEC_BYTES setting keys across kernels (what carries KB memory from one
// example to another), and naming only techniques the seed KB knows.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kb/kb_store.h"
#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/flag_space.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;

namespace {

std::string example_text(const std::string& name) {
  std::ifstream in(std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src/" + name + ".cu");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The flag dimensions and the space tune uses for a declaration (tuner.cc).
std::vector<FlagDimension> flags_of(const SpaceDecl& d) {
  return d.flags_declared ? d.flags : default_flag_dimensions("sm_90");
}
ConfigSpace space_of(const SpaceDecl& d) { return enumerate_space(d, flags_of(d)); }

const Tunable* tunable(const SpaceDecl& d, const std::string& name) {
  for (const Tunable& t : d.tunables)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace

TEST(ExampleSpaces, SizesAreSmallEnoughToRecordExhaustively) {
  // Valid configurations, the original included: tunable values times flag values.
  const std::map<std::string, std::size_t> expected = {
      {"vector_add", 5 * 3 * 2},     // BLOCK_SIZE x VEC_BYTES x dlcm
      {"softmax", 6 * 3 * 2 * 2},    // BLOCK_SIZE x VEC_BYTES x fast_math x maxrregcount
      {"rmsnorm", 6 * 4 * 2 * 2},    // BLOCK_SIZE x VEC_BYTES (half: 2..16) x fast_math x maxrregcount
      {"transpose", 3 * 40},         // TILE x the 40 default flag combinations on sm_90
      {"matmul", 3 * 40},            // TILE (64 fails TILE * TILE <= 1024) x 40
  };
  for (const auto& [name, valid] : expected) {
    SpaceDecl d = parse_directives(example_text(name), name + ".cu", "sm_90");
    ConfigSpace s = space_of(d);
    EXPECT_EQ(s.valid, valid) << name;
    EXPECT_EQ(s.configs.size(), valid - 1) << name;
    EXPECT_FALSE(s.capped) << name;
  }
}

TEST(ExampleSpaces, VecBytesDefaultsToOneElementSoTheOriginalIsScalar) {
  const std::map<std::string, std::pair<std::string, std::vector<std::string>>> expected = {
      {"vector_add", {"4", {"4", "8", "16"}}},  // float
      {"softmax", {"4", {"4", "8", "16"}}},     // float
      {"rmsnorm", {"2", {"2", "4", "8", "16"}}},  // __half
  };
  for (const auto& [name, want] : expected) {
    SpaceDecl d = parse_directives(example_text(name), name + ".cu", "sm_90");
    const Tunable* t = tunable(d, "VEC_BYTES");
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->default_value, want.first) << name;
    EXPECT_EQ(t->values, want.second) << name;
    EXPECT_EQ(t->technique, "vectorized_memory_access") << name;
  }
}

TEST(ExampleSpaces, VectorWidthsShareSettingKeysAcrossKernels) {
  // The KB matches settings by key: VEC_BYTES=16 learned on one example must
  // be the same key on the others.
  std::map<std::string, std::set<std::string>> keys;
  for (const std::string name : {"vector_add", "softmax", "rmsnorm"}) {
    SpaceDecl d = parse_directives(example_text(name), name + ".cu", "sm_90");
    for (const Configuration& c : space_of(d).configs)
      for (const Setting& s : c.settings)
        if (s.name == "VEC_BYTES") keys[name].insert(s.key());
  }
  for (const std::string name : {"vector_add", "softmax", "rmsnorm"}) {
    EXPECT_TRUE(keys[name].count("VEC_BYTES=8")) << name;
    EXPECT_TRUE(keys[name].count("VEC_BYTES=16")) << name;
  }
}

TEST(ExampleSpaces, EveryDeclaredTechniqueIsInTheSeedKb) {
  kb::KnowledgeBase seed = kb::load_kb(std::string(KERNELBLASTER_EXAMPLES_DIR) + "/../../data/kb/seed.json");
  for (const std::string name : {"vector_add", "softmax", "rmsnorm", "transpose", "matmul"}) {
    SpaceDecl d = parse_directives(example_text(name), name + ".cu", "sm_90");
    for (const Tunable& t : d.tunables) EXPECT_NE(seed.find_technique(t.technique), nullptr) << name << " " << t.name;
    for (const FlagDimension& f : flags_of(d))
      EXPECT_NE(seed.find_technique(f.technique), nullptr) << name << " " << f.name;
  }
}
