#include "tuner/constraint.h"

#include <gtest/gtest.h>

using kernelblaster::tuner::Constraint;
using kernelblaster::tuner::ConstraintError;

TEST(Constraint, ArithmeticAndComparisons) {
  Constraint c("BLOCK_SIZE * ITEMS <= 4096");
  EXPECT_TRUE(c.holds({{"BLOCK_SIZE", 1024}, {"ITEMS", 4}}));
  EXPECT_FALSE(c.holds({{"BLOCK_SIZE", 1024}, {"ITEMS", 8}}));
  EXPECT_EQ(c.names(), (std::set<std::string>{"BLOCK_SIZE", "ITEMS"}));
}

TEST(Constraint, PrecedenceAndParentheses) {
  EXPECT_TRUE(Constraint("1 + 2 * 3 == 7").holds({}));
  EXPECT_TRUE(Constraint("(1 + 2) * 3 == 9").holds({}));
  EXPECT_TRUE(Constraint("10 - 4 - 3 == 3").holds({}));  // left associative
  EXPECT_TRUE(Constraint("17 % 5 == 2 && 17 / 5 == 3").holds({}));
  EXPECT_TRUE(Constraint("-3 + 5 == 2").holds({}));
  EXPECT_TRUE(Constraint("!(1 > 2) || 0").holds({}));
  EXPECT_FALSE(Constraint("1 < 2 && 2 < 1").holds({}));
  EXPECT_TRUE(Constraint("A % 32 == 0 && A >= 64 && A != 128").holds({{"A", 256}}));
  EXPECT_FALSE(Constraint("A % 32 == 0 && A >= 64 && A != 128").holds({{"A", 128}}));
}

TEST(Constraint, DivisionByZeroDropsTheConfiguration) {
  EXPECT_FALSE(Constraint("N / D > 0").holds({{"N", 4}, {"D", 0}}));
  // Short-circuit as in C: the guard keeps the division from running.
  EXPECT_FALSE(Constraint("D != 0 && N / D > 0").holds({{"N", 4}, {"D", 0}}));
  EXPECT_TRUE(Constraint("D == 0 || N / D > 0").holds({{"N", 4}, {"D", 0}}));
}

TEST(Constraint, MalformedExpressionsSayWhere) {
  auto message = [](const std::string& text) {
    try {
      Constraint c(text);
    } catch (const ConstraintError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("(A + 1"), "column 7: expected ')'");
  EXPECT_EQ(message("A +"), "column 4: expression ends early");
  EXPECT_EQ(message("A $ 2"), "column 3: unexpected character '$'");
  EXPECT_EQ(message("A 2"), "column 3: unexpected '2'");
  EXPECT_EQ(message(""), "empty expression");
  EXPECT_EQ(message("12ab > 1"), "column 1: malformed number '12a'");
  EXPECT_THROW(Constraint("A > 1").holds({}), ConstraintError);  // no value for A
}
