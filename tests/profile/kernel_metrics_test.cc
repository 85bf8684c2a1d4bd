#include "profile/kernel_metrics.h"

#include <gtest/gtest.h>

namespace kernelblaster::profile {
namespace {

ProfiledKernel kernel(const std::string& name, double duration_ns, double dram_pct) {
  ProfiledKernel k;
  k.name = name;
  k.counters["gpu__time_duration.sum"] = duration_ns;
  k.counters["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = dram_pct;
  k.launch["registers_per_thread"] = 32;
  k.launch["block_size"] = 256;
  return k;
}

TEST(KernelMetrics, DominantFirstWithRooflineAndCallFacts) {
  ProfileReport r;
  r.kernels = {kernel("_Z5smallPf", 10000, 20), kernel("_Z3bigPKfPf", 90000, 80)};
  r.flops = -1;
  r.bytes = 200e6;  // 200 MB over the call's 100 us of kernels: 2000 GB/s
  std::map<std::string, PtxasFacts> ptxas;
  ptxas["_Z3bigPKfPf"].registers = 40;  // the launch record's 32 wins
  ptxas["_Z3bigPKfPf"].spill_store_bytes = 8;
  ProfileInputs in;
  in.report = &r;
  in.ptxas = &ptxas;
  in.ceilings = Ceilings{4000, 60000, 0, 0};
  in.call_median_us = 125;
  in.kernels_per_run = 2;
  auto kernels = build_kernel_profiles(in);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "big(float const*, float*)");
  const auto& m = kernels[0].metrics;
  EXPECT_DOUBLE_EQ(m.at("duration_us"), 90);
  EXPECT_DOUBLE_EQ(m.at("dram_throughput_pct"), 80);
  EXPECT_EQ(m.at("registers_per_thread"), 32);
  EXPECT_EQ(m.at("spill_bytes"), 8);
  EXPECT_DOUBLE_EQ(m.at("share_of_call_pct"), 90);
  EXPECT_DOUBLE_EQ(m.at("gpu_busy_pct"), 80);
  EXPECT_EQ(m.at("kernels_per_run"), 2);
  EXPECT_DOUBLE_EQ(m.at("achieved_bandwidth_gbs"), 2000);
  EXPECT_DOUBLE_EQ(m.at("bandwidth_pct_of_peak"), 50);
  EXPECT_FALSE(m.count("achieved_gflops"));  // no FLOPs declared
  EXPECT_EQ(dominant_kernel_metrics(kernels), m);
  EXPECT_FALSE(kernels[1].metrics.count("spill_bytes"));  // no ptxas facts for it
}

TEST(KernelMetrics, RepeatedLaunchesOfOneFunctionMerge) {
  ProfileReport r;
  r.kernels = {kernel("_Z4stepv", 10000, 50), kernel("_Z4stepv", 30000, 70), kernel("_Z4tailv", 5000, 10)};
  ProfileInputs in;
  in.report = &r;
  auto kernels = build_kernel_profiles(in);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "step()");
  EXPECT_DOUBLE_EQ(kernels[0].metrics.at("duration_us"), 40);
  EXPECT_EQ(kernels[0].metrics.at("launches_per_run"), 2);
  EXPECT_DOUBLE_EQ(kernels[0].metrics.at("dram_throughput_pct"), 70);  // of the longest launch
  EXPECT_FALSE(kernels[0].metrics.count("bandwidth_pct_of_peak"));     // no ceilings, no work declared
}

TEST(KernelMetrics, NothingProfiledIsEmpty) {
  ProfileReport r;
  ProfileInputs in;
  in.report = &r;
  EXPECT_TRUE(build_kernel_profiles(in).empty());
  EXPECT_TRUE(dominant_kernel_metrics({}).empty());
  EXPECT_EQ(demangle("not_mangled"), "not_mangled");
}

}  // namespace
}  // namespace kernelblaster::profile
