#include "common/text.h"

#include <gtest/gtest.h>

#include <string>

using kernelblaster::joined;
using kernelblaster::quoted_excerpt;

TEST(QuotedExcerpt, PlainTextIsQuotedAsIs) { EXPECT_EQ(quoted_excerpt("block_256"), "'block_256'"); }

TEST(QuotedExcerpt, LineBreaksControlBytesAndNonAsciiAreEscaped) {
  // The input the policy fuzzer found: a returned id with \r, \f and 0xff bytes.
  std::string got = quoted_excerpt(std::string("a\nb\r\x0c\xff'\\z", 9));
  EXPECT_EQ(got, "'a\\nb\\r\\x0c\\xff\\'\\\\z'");
  EXPECT_EQ(got.find('\n'), std::string::npos);
  for (char c : got) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
}

TEST(QuotedExcerpt, LongTextIsCutAtTheLimit) {
  EXPECT_EQ(quoted_excerpt(std::string(1000, 'x'), 5), "'xxxxx...'");
  EXPECT_EQ(quoted_excerpt("xxxxx", 5), "'xxxxx'");
}

TEST(QuotedExcerpt, EmbeddedNulIsShownNotDropped) {
  EXPECT_EQ(quoted_excerpt(std::string("a\0b", 3)), "'a\\x00b'");
}

TEST(BytesText, BinaryUnitsFromMiBToGiB) {
  EXPECT_EQ(kernelblaster::bytes_text(std::uint64_t{312} << 20), "312 MiB");
  EXPECT_EQ(kernelblaster::bytes_text((std::uint64_t{1} << 30) - 1), "1023 MiB");
  EXPECT_EQ(kernelblaster::bytes_text(std::uint64_t{1} << 30), "1.0 GiB");
  EXPECT_EQ(kernelblaster::bytes_text(8708538368u), "8.1 GiB");
}

TEST(Joined, PartsInOrderWithTheSeparatorBetween) {
  EXPECT_EQ(joined({}), "");
  EXPECT_EQ(joined({"a"}), "a");
  EXPECT_EQ(joined({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(joined({"x", "y"}, " | "), "x | y");
}
