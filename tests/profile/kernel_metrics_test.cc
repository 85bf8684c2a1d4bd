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

// Counts of executed floating-point instructions and DRAM bytes of one launch.
void add_work(ProfiledKernel& k, double fadd, double fmul, double ffma, double hfma, double dfma, double bytes) {
  const std::string op = "smsp__sass_thread_inst_executed_op_";
  for (const char* p : {"f", "h", "d"})
    for (const char* o : {"add", "mul", "fma"}) k.counters[op + p + o + "_pred_on.sum"] = 0;
  k.counters[op + "fadd_pred_on.sum"] = fadd;
  k.counters[op + "fmul_pred_on.sum"] = fmul;
  k.counters[op + "ffma_pred_on.sum"] = ffma;
  k.counters[op + "hfma_pred_on.sum"] = hfma;
  k.counters[op + "dfma_pred_on.sum"] = dfma;
  k.counters["dram__bytes_read.sum"] = bytes / 2;
  k.counters["dram__bytes_write.sum"] = bytes / 2;
}

// The profiles of a report with no work declared, under ceilings of 4000
// GB/s, 60 FP32 and 120 FP16 TFLOP/s.
std::vector<KernelProfile> undeclared(const ProfileReport& r) {
  ProfileInputs in;
  in.report = &r;
  in.ceilings = Ceilings{4000, 60000, 120000, 0};
  return build_kernel_profiles(in);
}

// With no work declared (a KernelBench problem, a synthesized harness), each
// kernel is placed from its own counters: FLOPs executed (an FMA is two)
// over DRAM bytes, in its own launch's time.
TEST(KernelMetrics, WithNoWorkDeclaredEachKernelIsPlacedFromItsCounters) {
  ProfileReport r;
  r.kernels = {kernel("_Z6matmulv", 1000000, 1), kernel("_Z4copyv", 100000, 90), kernel("_Z4copyv", 100000, 90)};
  add_work(r.kernels[0], 1e9, 1e9, 19e9, 0, 0, 1e9);  // 40 GFLOP over 1 GB in 1 ms
  add_work(r.kernels[1], 0, 0, 0, 0, 0, 200e6);        // 200 MB in 100 us: 2000 GB/s
  add_work(r.kernels[2], 0, 0, 0, 0, 0, 200e6);
  auto kernels = undeclared(r);
  ASSERT_EQ(kernels.size(), 2u);
  const auto& mm = kernels[0].metrics;
  EXPECT_DOUBLE_EQ(mm.at("fp32_flops"), 40e9);
  EXPECT_DOUBLE_EQ(mm.at("arithmetic_intensity"), 40);
  EXPECT_DOUBLE_EQ(mm.at("achieved_gflops"), 40000);
  // At 40 FLOP/byte the roof is the compute peak (4000 GB/s x 40 > 60000 GFLOP/s).
  EXPECT_NEAR(mm.at("roofline_bound_pct"), 100.0 * 40000 / 60000, 1e-9);
  EXPECT_EQ(mm.at("roofline_from_counters"), 1);
  const auto& copy = kernels[1].metrics;
  EXPECT_EQ(copy.at("launches_per_run"), 2);
  EXPECT_DOUBLE_EQ(copy.at("arithmetic_intensity"), 0);
  EXPECT_DOUBLE_EQ(copy.at("achieved_bandwidth_gbs"), 2000);  // one launch's bytes in one launch's time
  EXPECT_DOUBLE_EQ(copy.at("roofline_bound_pct"), 50);
}

TEST(KernelMetrics, MostlyHalfWorkIsPlacedUnderTheHalfRoofAndDoubleWorkNowhere) {
  ProfileReport r;
  r.kernels = {kernel("_Z4halfv", 1000000, 1), kernel("_Z6doublev", 500000, 1)};
  add_work(r.kernels[0], 0, 0, 1e9, 30e9, 0, 1e9);  // 62 GFLOP, 60 of them half
  add_work(r.kernels[1], 0, 0, 1e9, 0, 5e9, 1e9);
  auto kernels = undeclared(r);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_NEAR(kernels[0].metrics.at("flops_pct_of_peak"), 100.0 * 62000 / 120000, 1e-9);
  EXPECT_FALSE(kernels[1].metrics.count("roofline_bound_pct"));  // no FP64 roof is measured
  EXPECT_DOUBLE_EQ(kernels[1].metrics.at("fp64_flops"), 10e9);
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
