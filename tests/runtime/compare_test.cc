#include "runtime/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace kernelblaster {
namespace {

const ToleranceSpec kF32{1e-5, 1e-5, 1e-4};

OutputView f32(const std::vector<float>& v) {
  return {ElementType::f32, reinterpret_cast<const unsigned char*>(v.data()), static_cast<std::int64_t>(v.size())};
}

std::vector<float> softmax_like(int n) {
  std::vector<float> v(n);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += v[i] = std::exp(std::sin(i * 0.37) * 3);
  for (float& x : v) x = static_cast<float>(x / sum);
  return v;
}

float poisoned_f32() {
  std::uint32_t bits = 0xFFFFFFFFu;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(Compare, IdenticalOutputsPass) {
  auto ref = softmax_like(1000);
  OutputError e = compare_output("y", f32(ref), f32(ref), kF32, 0xFF);
  EXPECT_TRUE(within_tolerance(e, kF32));
  EXPECT_EQ(e.rel_l2, 0);
  EXPECT_EQ(e.first_bad, -1);
}

TEST(Compare, SummationOrderNoisePasses) {
  auto ref = softmax_like(1000), cand = ref;
  for (std::size_t i = 0; i < cand.size(); i += 3) cand[i] = std::nextafter(cand[i], 1.0f);  // one ulp
  OutputError e = compare_output("y", f32(ref), f32(cand), kF32, 0xFF);
  EXPECT_TRUE(within_tolerance(e, kF32)) << e.rel_l2;
}

TEST(Compare, AllZeroSoftmaxIsWrongNotInaccurate) {
  // The hack that passes atol 0.1: every softmax value is far below 0.1.
  auto ref = softmax_like(1000);
  std::vector<float> zeros(ref.size(), 0.0f);
  OutputError e = compare_output("y", f32(ref), f32(zeros), kF32, 0xFF);
  EXPECT_FALSE(within_tolerance(e, kF32));
  EXPECT_NEAR(e.rel_l2, 1.0, 1e-12);
  EXPECT_FALSE(merely_inaccurate(e, kF32));
}

TEST(Compare, HalfPrecisionComputationIsInaccurate) {
  auto ref = softmax_like(4096), cand = ref;
  for (float& x : cand) x *= 1.0f + 4e-4f * std::sin(x * 1e4f);  // fp16-sized relative error
  OutputError e = compare_output("y", f32(ref), f32(cand), kF32, 0xFF);
  EXPECT_FALSE(within_tolerance(e, kF32));
  EXPECT_TRUE(merely_inaccurate(e, kF32));
}

TEST(Compare, OneWildElementIsWrong) {
  auto ref = softmax_like(100000), cand = ref;
  cand[777] += 1.0f;
  OutputError e = compare_output("y", f32(ref), f32(cand), kF32, 0xFF);
  EXPECT_EQ(e.mismatched, 1);
  EXPECT_EQ(e.first_bad, 777);
  EXPECT_FALSE(merely_inaccurate(e, kF32));
}

TEST(Compare, PoisonedElementsCountAsUnwritten) {
  auto ref = softmax_like(100), cand = ref;
  for (int i = 50; i < 100; ++i) cand[i] = poisoned_f32();
  OutputError e = compare_output("y", f32(ref), f32(cand), kF32, 0xFF);
  EXPECT_EQ(e.unwritten, 50);
  EXPECT_EQ(e.first_bad, 50);
  EXPECT_FALSE(within_tolerance(e, kF32));
}

TEST(Compare, NaNPassesOnlyWhereTheReferenceHasIt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> ref = {1, nan, 3}, same = {1, nan, 3}, extra = {1, nan, nan}, missing = {1, 2, 3};
  EXPECT_TRUE(within_tolerance(compare_output("y", f32(ref), f32(same), kF32, 0xFF), kF32));
  OutputError e = compare_output("y", f32(ref), f32(extra), kF32, 0xFF);
  EXPECT_EQ(e.nonfinite_mismatch, 1);
  EXPECT_EQ(compare_output("y", f32(ref), f32(missing), kF32, 0xFF).nonfinite_mismatch, 1);
}

TEST(Compare, InfinityMustMatchSign) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> ref = {inf, -inf}, same = {inf, -inf}, flipped = {inf, inf};
  EXPECT_TRUE(within_tolerance(compare_output("y", f32(ref), f32(same), kF32, 0xFF), kF32));
  EXPECT_EQ(compare_output("y", f32(ref), f32(flipped), kF32, 0xFF).nonfinite_mismatch, 1);
}

TEST(Compare, IntegerPoisonUsesTheRunsByte) {
  std::vector<std::int32_t> ref = {1, 2, 3, 4}, cand = {1, 2, 0x5A5A5A5A, 4};
  OutputView r{ElementType::i32, reinterpret_cast<const unsigned char*>(ref.data()), 4};
  OutputView c{ElementType::i32, reinterpret_cast<const unsigned char*>(cand.data()), 4};
  ToleranceSpec exact{0, 0, 0};
  EXPECT_EQ(compare_output("idx", r, c, exact, 0x5A).unwritten, 1);
  // The same value under another run's poison byte is just a wrong value.
  OutputError e = compare_output("idx", r, c, exact, 0xFF);
  EXPECT_EQ(e.unwritten, 0);
  EXPECT_EQ(e.mismatched, 1);
}

TEST(Compare, ReferenceEqualToPoisonIsNotUnwritten) {
  std::vector<std::int32_t> ref = {-1, 7}, cand = {-1, 7};
  OutputView r{ElementType::i32, reinterpret_cast<const unsigned char*>(ref.data()), 2};
  OutputView c{ElementType::i32, reinterpret_cast<const unsigned char*>(cand.data()), 2};
  ToleranceSpec exact{0, 0, 0};
  EXPECT_TRUE(within_tolerance(compare_output("v", r, c, exact, 0xFF), exact));
}

TEST(Compare, AbsoluteToleranceScalesWithReferenceRms) {
  // Outputs around 1000: an absolute error of 5e-3 is 5e-6 relative, fine for fp32.
  std::vector<float> ref(64, 1000.0f), cand = ref;
  ref[0] = 0.0f;
  cand[0] = 5e-3f;
  OutputError e = compare_output("c", f32(ref), f32(cand), kF32, 0xFF);
  EXPECT_EQ(e.mismatched, 0) << e.worst_excess;
}

TEST(HalfFloat, ConvertsKnownBitPatterns) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(half_to_float(0x7C00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_TRUE(std::isnan(half_to_float(0xFFFF)));  // the poison pattern
}

TEST(BFloat16, ConvertsKnownBitPatterns) {
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0xC040), -3.0f);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(0xFFFF)));
}

TEST(ElementType, ParsesEveryName) {
  ElementType t;
  for (const char* n : {"f32", "f64", "f16", "bf16", "i8", "u8", "i16", "i32", "u32", "i64"})
    EXPECT_TRUE(dtype_from_name(n, &t)) << n;
  EXPECT_FALSE(dtype_from_name("fp32", &t));
}

}  // namespace
}  // namespace kernelblaster
