#include "runtime/occupancy.h"

#include <cuda_occupancy.h>

#include <climits>

namespace kernelblaster::runtime {

Occupancy theoretical_occupancy(const DeviceLimits& d, const LaunchFacts& l) {
  Occupancy occ;
  if (l.block_threads <= 0 || d.max_threads_per_sm <= 0 || d.warp_size <= 0) {
    occ.error = "no block size or device limits";
    return occ;
  }
  cudaOccDeviceProp prop;
  prop.computeMajor = d.cc_major;
  prop.computeMinor = d.cc_minor;
  prop.maxThreadsPerBlock = d.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  prop.regsPerBlock = d.regs_per_block;
  prop.regsPerMultiprocessor = d.regs_per_sm;
  prop.warpSize = d.warp_size;
  prop.sharedMemPerBlock = d.smem_per_block;
  prop.sharedMemPerMultiprocessor = d.smem_per_sm;
  prop.numSms = d.sm_count;
  prop.sharedMemPerBlockOptin = d.smem_per_block_optin;
  prop.reservedSharedMemPerBlock = d.reserved_smem_per_block;

  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = INT_MAX;
  attr.numRegs = l.registers_per_thread;
  attr.sharedSizeBytes = static_cast<std::size_t>(l.static_smem_bytes);
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  // A launch that used more than the default dynamic limit must have opted in.
  bool optin = static_cast<std::size_t>(l.static_smem_bytes + l.dynamic_smem_bytes) > d.smem_per_block;
  attr.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  attr.maxDynamicSharedSizeBytes = static_cast<std::size_t>(l.dynamic_smem_bytes);
  attr.numBlockBarriers = 1;

  cudaOccDeviceState state;
  cudaOccResult result{};
  cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, l.block_threads,
                                                           static_cast<std::size_t>(l.dynamic_smem_bytes));
  if (e != CUDA_OCC_SUCCESS) {
    occ.error = "occupancy calculator error " + std::to_string(static_cast<int>(e));
    return occ;
  }
  occ.ok = true;
  occ.blocks_per_sm = result.activeBlocksPerMultiprocessor;
  int warps_per_block = (l.block_threads + d.warp_size - 1) / d.warp_size;
  int max_warps = d.max_threads_per_sm / d.warp_size;
  occ.theoretical_pct = 100.0 * occ.blocks_per_sm * warps_per_block / max_warps;
  // At full occupancy nothing limits it, even though the calculator names
  // the resource that happens to run out first.
  if (occ.theoretical_pct < 99.95) {
    occ.limited_by_registers = result.limitingFactors & OCC_LIMIT_REGISTERS;
    occ.limited_by_shared_mem = result.limitingFactors & OCC_LIMIT_SHARED_MEMORY;
    occ.limited_by_block_size = result.limitingFactors & (OCC_LIMIT_WARPS | OCC_LIMIT_BLOCKS);
  }
  if (occ.blocks_per_sm > 0 && d.sm_count > 0)
    occ.waves_per_sm = static_cast<double>(l.grid_blocks) / (static_cast<double>(d.sm_count) * occ.blocks_per_sm);
  return occ;
}

std::map<std::string, double> launch_metrics(const LaunchFacts& l, const Occupancy& occ) {
  std::map<std::string, double> m;
  m["grid_size"] = static_cast<double>(l.grid_blocks);
  m["block_size"] = l.block_threads;
  m["registers_per_thread"] = l.registers_per_thread;
  m["shared_mem_per_block_bytes"] = static_cast<double>(l.static_smem_bytes + l.dynamic_smem_bytes);
  m["local_mem_per_thread_bytes"] = static_cast<double>(l.local_mem_per_thread_bytes);
  if (occ.ok) {
    m["theoretical_occupancy_pct"] = occ.theoretical_pct;
    m["occupancy_limited_by_registers"] = occ.limited_by_registers ? 1 : 0;
    m["occupancy_limited_by_shared_mem"] = occ.limited_by_shared_mem ? 1 : 0;
    m["occupancy_limited_by_block_size"] = occ.limited_by_block_size ? 1 : 0;
    m["blocks_per_sm"] = occ.blocks_per_sm;
    m["waves_per_sm"] = occ.waves_per_sm;
  }
  return m;
}

}  // namespace kernelblaster::runtime
