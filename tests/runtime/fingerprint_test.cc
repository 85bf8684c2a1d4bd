#include "runtime/fingerprint.h"

#include <gtest/gtest.h>

#include <vector>

namespace kernelblaster {
namespace {

std::vector<unsigned char> bytes(std::size_t n) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 31 + 7);
  return v;
}

TEST(Fingerprint, ChangesWithAnyByte) {
  auto v = bytes(1003);  // includes a tail past the last full word
  std::uint64_t base = fingerprint_host(v.data(), v.size());
  for (std::size_t i : {0ul, 7ul, 8ul, 500ul, 1000ul, 1002ul}) {
    auto w = v;
    w[i] ^= 1;
    EXPECT_NE(fingerprint_host(w.data(), w.size()), base) << "byte " << i;
  }
}

TEST(Fingerprint, DetectsSwappedWords) {
  auto v = bytes(64), w = v;
  for (int b = 0; b < 8; ++b) std::swap(w[b], w[8 + b]);
  EXPECT_NE(fingerprint_host(v.data(), v.size()), fingerprint_host(w.data(), w.size()));
}

TEST(Fingerprint, IsAPureFunctionOfContent) {
  auto v = bytes(4096), w = v;
  EXPECT_EQ(fingerprint_host(v.data(), v.size()), fingerprint_host(w.data(), w.size()));
  EXPECT_NE(fingerprint_host(v.data(), 4096), fingerprint_host(v.data(), 4095));
}

}  // namespace
}  // namespace kernelblaster
