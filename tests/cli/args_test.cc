#include "cli/args.h"

#include <gtest/gtest.h>

namespace kernelblaster {
namespace {

TEST(Args, ReadsValuesFlagsAndRepeats) {
  Args a({"--source", "a.cu", "-Iinc", "-I", "more", "--seeds=5", "--json"}, {"--source", "-I", "--seeds"},
         {"--json"});
  EXPECT_EQ(a.value("--source"), "a.cu");
  EXPECT_EQ(a.values("-I"), (std::vector<std::string>{"inc", "more"}));
  EXPECT_EQ(a.number("--seeds", 3), 5);
  EXPECT_TRUE(a.flag("--json"));
  EXPECT_FALSE(a.flag("--keep"));
}

TEST(Args, MistakesAreUsageErrors) {
  EXPECT_THROW(Args({"--bogus"}, {"--source"}, {}), UsageError);
  EXPECT_THROW(Args({"--source"}, {"--source"}, {}), UsageError);
  EXPECT_THROW(Args({"--json=1"}, {}, {"--json"}), UsageError);
  Args twice({"--source", "a", "--source", "b"}, {"--source"}, {});
  EXPECT_THROW(twice.value("--source"), UsageError);
  Args nan({"--seeds", "many"}, {"--seeds"}, {});
  EXPECT_THROW(nan.number("--seeds", 3), UsageError);
}

}  // namespace
}  // namespace kernelblaster
