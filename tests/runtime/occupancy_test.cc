#include "runtime/occupancy.h"

#include <gtest/gtest.h>

namespace kernelblaster::runtime {
namespace {

// An H100 SXM / H200 as cudaGetDeviceProperties reports it.
DeviceLimits hopper() {
  DeviceLimits d;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.warp_size = 32;
  d.smem_per_block = 48 * 1024;
  d.smem_per_sm = 228 * 1024;
  d.smem_per_block_optin = 227 * 1024;
  d.reserved_smem_per_block = 1024;
  return d;
}

LaunchFacts launch(int block, int regs, long long smem_dyn = 0, long long grid = 132 * 8) {
  LaunchFacts l;
  l.block_threads = block;
  l.registers_per_thread = regs;
  l.dynamic_smem_bytes = smem_dyn;
  l.grid_blocks = grid;
  return l;
}

TEST(Occupancy, FullOccupancyHasNoLimiter) {
  Occupancy o = theoretical_occupancy(hopper(), launch(256, 32));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.theoretical_pct, 100.0);
  EXPECT_FALSE(o.limited_by_registers || o.limited_by_shared_mem || o.limited_by_block_size);
  EXPECT_DOUBLE_EQ(o.waves_per_sm, 1.0);
}

TEST(Occupancy, RegistersLimit) {
  // 128 regs x 256 threads = 32768 registers per block: 2 blocks, 16 of 64 warps.
  Occupancy o = theoretical_occupancy(hopper(), launch(256, 128));
  ASSERT_TRUE(o.ok);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(o.theoretical_pct, 25.0);
  EXPECT_TRUE(o.limited_by_registers);
  EXPECT_FALSE(o.limited_by_shared_mem);
  EXPECT_DOUBLE_EQ(o.waves_per_sm, 4.0);
}

TEST(Occupancy, SharedMemoryLimit) {
  // 100 KiB dynamic (+1 KiB reserved) per block: 2 blocks in 228 KiB.
  Occupancy o = theoretical_occupancy(hopper(), launch(128, 32, 100 * 1024));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(o.theoretical_pct, 12.5);
  EXPECT_TRUE(o.limited_by_shared_mem);
  EXPECT_FALSE(o.limited_by_registers);
}

TEST(Occupancy, SmallBlocksAreLimitedByBlocksPerSm) {
  // 32-thread blocks: at most 32 blocks per SM = 32 of 64 warps.
  Occupancy o = theoretical_occupancy(hopper(), launch(32, 16));
  ASSERT_TRUE(o.ok);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.theoretical_pct, 50.0);
  EXPECT_TRUE(o.limited_by_block_size);
}

TEST(Occupancy, MetricsUnderContractNames) {
  LaunchFacts l = launch(256, 128);
  l.static_smem_bytes = 1024;
  l.dynamic_smem_bytes = 2048;
  auto m = launch_metrics(l, theoretical_occupancy(hopper(), l));
  EXPECT_EQ(m.at("block_size"), 256);
  EXPECT_EQ(m.at("grid_size"), 132 * 8);
  EXPECT_EQ(m.at("registers_per_thread"), 128);
  EXPECT_EQ(m.at("shared_mem_per_block_bytes"), 3072);
  EXPECT_EQ(m.at("occupancy_limited_by_registers"), 1);
  EXPECT_EQ(m.at("occupancy_limited_by_shared_mem"), 0);
  EXPECT_DOUBLE_EQ(m.at("theoretical_occupancy_pct"), 25.0);
  EXPECT_TRUE(m.count("waves_per_sm"));
}

TEST(Occupancy, NoBlockSizeIsAnError) {
  Occupancy o = theoretical_occupancy(hopper(), launch(0, 32));
  EXPECT_FALSE(o.ok);
  auto m = launch_metrics(launch(0, 32), o);
  EXPECT_FALSE(m.count("theoretical_occupancy_pct"));
}

}  // namespace
}  // namespace kernelblaster::runtime
