#include "tuner/start_from.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "fakes.h"
#include "tuner/directives.h"
#include "tuner/flag_space.h"

using namespace kernelblaster::tuner;

namespace {

ConfigSpace two_with_flags() {
  return enumerate_space(parse_directives(kernelblaster::tuner::testing::kTwoTunables, "k.cu", "sm_90"), default_flag_dimensions("sm_90"));
}

}  // namespace

TEST(StartFrom, ReadsSettingsAndFlags) {
  const StartFrom s = parse_start_from("BLOCK_SIZE=128, ITEMS=1,-use_fast_math,,-Xptxas=-dlcm=cg");
  EXPECT_EQ(s.values, (std::map<std::string, std::string>{{"BLOCK_SIZE", "128"}, {"ITEMS", "1"}}));
  EXPECT_EQ(s.flags, (std::vector<std::string>{"-use_fast_math", "-Xptxas=-dlcm=cg"}));
  EXPECT_TRUE(parse_start_from("").values.empty());
  EXPECT_THROW(parse_start_from("BLOCK_SIZE"), std::invalid_argument);
  EXPECT_THROW(parse_start_from("=128"), std::invalid_argument);
  EXPECT_THROW(parse_start_from("BLOCK_SIZE="), std::invalid_argument);
}

// A lockfile entry names every tunable, defaults too, and its flags in any
// order; the run log's id names the changed settings in the space's order.
// Both find the same configuration.
TEST(StartFrom, FindsTheConfigurationWhateverTheOrderAndTheDefaultsNamed) {
  const ConfigSpace space = two_with_flags();
  EXPECT_EQ(find_start(space, parse_start_from("BLOCK_SIZE=128,ITEMS=1,-arch=sm_90a,-use_fast_math")),
            "BLOCK_SIZE=128,-use_fast_math,-arch=sm_90a");
  EXPECT_EQ(find_start(space, parse_start_from("BLOCK_SIZE=128,-use_fast_math,-arch=sm_90a")),
            "BLOCK_SIZE=128,-use_fast_math,-arch=sm_90a");
  EXPECT_EQ(find_start(space, parse_start_from("ITEMS=2")), "ITEMS=2");
}

// What today's space does not hold is not started from: a tunable the
// source lost, a value it no longer offers, one its constraint refuses, a
// flag not searched, the original itself.
TEST(StartFrom, NothingOutsideTodaysSpace) {
  const ConfigSpace space = two_with_flags();
  EXPECT_EQ(find_start(space, parse_start_from("THREADS=128")), std::nullopt);
  EXPECT_EQ(find_start(space, parse_start_from("BLOCK_SIZE=96")), std::nullopt);
  EXPECT_EQ(find_start(space, parse_start_from("BLOCK_SIZE=1024,ITEMS=8")), std::nullopt);
  EXPECT_EQ(find_start(space, parse_start_from("BLOCK_SIZE=128,-G")), std::nullopt);
  EXPECT_EQ(find_start(space, parse_start_from("BLOCK_SIZE=256,ITEMS=1")), std::nullopt);
}
