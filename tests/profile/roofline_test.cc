#include "profile/roofline.h"

#include <gtest/gtest.h>

namespace kernelblaster::profile {
namespace {

const Ceilings kGpu{4000, 60000, 120000, 500000};  // GB/s, GFLOP/s

TEST(Roofline, MemoryBoundKernel) {
  // 1 GB moved, 0.25 GFLOP, in 500 us: 2000 GB/s, 500 GFLOP/s, intensity 0.25.
  auto m = roofline_position(0.25e9, 1e9, 500, kGpu, false);
  EXPECT_DOUBLE_EQ(m.at("achieved_bandwidth_gbs"), 2000);
  EXPECT_DOUBLE_EQ(m.at("bandwidth_pct_of_peak"), 50);
  EXPECT_DOUBLE_EQ(m.at("achieved_gflops"), 500);
  EXPECT_NEAR(m.at("flops_pct_of_peak"), 100.0 * 500 / 60000, 1e-12);
  EXPECT_DOUBLE_EQ(m.at("arithmetic_intensity"), 0.25);
  // The roof at 0.25 FLOP/B is 1000 GFLOP/s: half of it reached.
  EXPECT_DOUBLE_EQ(m.at("roofline_bound_pct"), 50);
  EXPECT_EQ(m.at("memory_bound"), 1);
}

TEST(Roofline, ComputeBoundUsesTensorCeilingWhenAsked) {
  // 100 GFLOP over 1 GB in 1 ms: 100000 GFLOP/s at intensity 100.
  auto fp32 = roofline_position(100e9, 1e9, 1000, kGpu, false);
  EXPECT_EQ(fp32.at("memory_bound"), 0);
  EXPECT_NEAR(fp32.at("flops_pct_of_peak"), 100.0 * 100000 / 60000, 1e-9);
  auto tensor = roofline_position(100e9, 1e9, 1000, kGpu, true);
  EXPECT_DOUBLE_EQ(tensor.at("flops_pct_of_peak"), 20);
  // At 100 FLOP/B the roof is the bandwidth's 400000, below the tensor peak.
  EXPECT_DOUBLE_EQ(tensor.at("roofline_bound_pct"), 25);
  EXPECT_EQ(tensor.at("memory_bound"), 1);
}

TEST(Roofline, WithoutCeilingsOnlyAchievedRates) {
  auto m = roofline_position(1e9, 2e9, 1000, Ceilings{}, false);
  EXPECT_DOUBLE_EQ(m.at("achieved_bandwidth_gbs"), 2000);
  EXPECT_DOUBLE_EQ(m.at("achieved_gflops"), 1000);
  EXPECT_DOUBLE_EQ(m.at("arithmetic_intensity"), 0.5);
  EXPECT_FALSE(m.count("bandwidth_pct_of_peak"));
  EXPECT_FALSE(m.count("flops_pct_of_peak"));
  EXPECT_FALSE(m.count("roofline_bound_pct"));
}

TEST(Roofline, UndeclaredWorkOrNoDurationGivesNothingInvented) {
  EXPECT_TRUE(roofline_position(-1, -1, 100, kGpu, false).empty());
  EXPECT_TRUE(roofline_position(1e9, 1e9, 0, kGpu, false).empty());
  auto bytes_only = roofline_position(-1, 1e9, 1000, kGpu, false);
  EXPECT_TRUE(bytes_only.count("achieved_bandwidth_gbs"));
  EXPECT_FALSE(bytes_only.count("achieved_gflops"));
  EXPECT_FALSE(bytes_only.count("arithmetic_intensity"));
}

}  // namespace
}  // namespace kernelblaster::profile
