// The plausibility line (judge/plausibility.h) and the comparison helpers
// the judges use for isolation and a driver's own check (runtime/compare.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/compare.h"
#include "judge/plausibility.h"

namespace kernelblaster {
namespace {

// level1/001-like: two 2048x2048 f16 inputs, one output; 17.2 GFLOP declared.
HarnessReport matmul_reference(double flops) {
  HarnessReport r;
  r.sizes = {{"default", {}, false, flops}};
  for (const char* name : {"A", "B"}) r.buffers.push_back({name, "f16", "input", {}, {{"default", 2048 * 2048}}});
  r.buffers.push_back({"C", "f16", "output", {}, {{"default", 2048 * 2048}}});
  return r;
}

SizeTiming timed(double cost_us) {
  SizeTiming t;
  t.size = "default";
  t.cost_us = cost_us;
  t.median_us = cost_us;
  return t;
}

profile::Ceilings h100() {
  profile::Ceilings c;
  c.dram_gbs = 3000;
  c.fp32_gflops = 60000;
  c.tensor_gflops = 600000;
  return c;
}

TEST(Plausibility, AnHonestTimeIsWithinTheCeilings) {
  Plausibility p = assess_plausibility(matmul_reference(2.0 * 2048 * 2048 * 2048), {timed(60)}, h100());
  ASSERT_TRUE(p.assessed);
  EXPECT_DOUBLE_EQ(p.input_bytes, 2 * 2048.0 * 2048 * 2);
  EXPECT_NEAR(p.bandwidth_gbs, 16777216 / 60e3, 1e-6);
  EXPECT_LT(p.bandwidth_ratio, 0.1);
  EXPECT_NEAR(p.compute_ratio, 17179.869184 / 60 * 1e3 / 600000, 1e-6);
  EXPECT_FALSE(p.implausible);
  EXPECT_NE(p.line.find("within this GPU's ceilings"), std::string::npos) << p.line;
}

// A result cache answering a 2048^3 product in 2 us: its declared work
// would run at 8.6 PFLOP/s, over 14 times the tensor cores' measured peak.
TEST(Plausibility, FarBeyondTheComputeCeilingIsImplausible) {
  Plausibility p = assess_plausibility(matmul_reference(2.0 * 2048 * 2048 * 2048), {timed(2)}, h100());
  EXPECT_TRUE(p.implausible);
  EXPECT_GT(p.compute_ratio, 14);
  EXPECT_NE(p.line.find("beyond what this GPU can do"), std::string::npos) << p.line;
}

// Without declared FLOPs the inputs' bytes decide: 16.8 MB read in 2 us is
// 8.4 TB/s, beyond twice the measured copy bandwidth.
TEST(Plausibility, InputsReadFasterThanTheMemoryAllowsAreImplausible) {
  EXPECT_TRUE(assess_plausibility(matmul_reference(-1), {timed(2)}, h100()).implausible);
  EXPECT_FALSE(assess_plausibility(matmul_reference(-1), {timed(6)}, h100()).implausible);
}

TEST(Plausibility, WithoutCeilingsItSaysHowToMeasureThem) {
  Plausibility p = assess_plausibility(matmul_reference(-1), {timed(2)}, std::nullopt);
  EXPECT_FALSE(p.assessed);
  EXPECT_FALSE(p.implausible);
  EXPECT_NE(p.line.find("kernelblaster gpu ceilings"), std::string::npos) << p.line;
  EXPECT_TRUE(assess_plausibility(matmul_reference(-1), {}, h100()).line.empty());
}

TEST(Plausibility, TheSizeFurthestBeyondIsReported) {
  HarnessReport r = matmul_reference(-1);
  r.sizes.push_back({"small", {}, false, -1});
  for (BufferDecl& b : r.buffers) b.elements_per_size["small"] = 1024;
  SizeTiming small = timed(0.001);  // 2 KB in 1 ns: 4 TB/s... of a tiny size
  small.size = "small";
  Plausibility p = assess_plausibility(r, {timed(60), small}, h100());
  EXPECT_EQ(p.size, "small");
}

OutputView f32_view(const std::vector<float>& v) {
  return {ElementType::f32, reinterpret_cast<const unsigned char*>(v.data()), static_cast<std::int64_t>(v.size())};
}

TEST(AllcloseFailures, FollowsTorchsRule) {
  std::vector<float> ref = {1.0f, 10.0f, 0.0f, NAN, INFINITY};
  std::vector<float> ok = {1.05f, 10.9f, 0.09f, NAN, INFINITY};
  EXPECT_EQ(allclose_failures(f32_view(ref), f32_view(ok), 0.1, 0.1, true), 0);
  EXPECT_EQ(allclose_failures(f32_view(ref), f32_view(ok), 0.1, 0.1, false), 1);  // NaN == NaN only when asked
  std::vector<float> bad = {1.3f, 10.0f, 0.0f, NAN, -INFINITY};
  EXPECT_EQ(allclose_failures(f32_view(ref), f32_view(bad), 0.1, 0.1, true), 2);
}

TEST(ScrubPattern, IsFoundInEveryWideTypeAndNeverInArithmetic) {
  std::vector<float> v = {1.0f, NAN, 0.0f, -INFINITY};
  EXPECT_EQ(scrub_pattern_elements(f32_view(v)), 0);
  std::uint32_t word = kScrubWord;
  std::memcpy(&v[2], &word, 4);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(scrub_pattern_elements(f32_view(v)), 1);
  std::vector<std::uint16_t> h = {0x7FF5, 0x3C00, 0x7FF5, 0x7E00};  // f16 and bf16 alike
  OutputView hv{ElementType::f16, reinterpret_cast<const unsigned char*>(h.data()), 4};
  EXPECT_EQ(scrub_pattern_elements(hv), 2);
  hv.type = ElementType::bf16;
  EXPECT_EQ(scrub_pattern_elements(hv), 2);
  std::vector<std::uint64_t> d = {0x7FF57FF57FF57FF5ull, 0x7FF8000000000000ull};
  OutputView dv{ElementType::f64, reinterpret_cast<const unsigned char*>(d.data()), 2};
  EXPECT_EQ(scrub_pattern_elements(dv), 1);
  std::vector<std::uint8_t> b = {0xF5, 0x7F};
  OutputView bv{ElementType::u8, b.data(), 2};
  EXPECT_EQ(scrub_pattern_elements(bv), 0);  // a byte can hold it by chance
}

}  // namespace
}  // namespace kernelblaster
