// Theoretical occupancy of one launch, computed with NVIDIA's occupancy
// calculator (cuda_occupancy.h, header-only: no GPU needed), from the launch
// facts of an activity record and the device's limits.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace kernelblaster::runtime {

struct DeviceLimits {
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int regs_per_block = 65536;
  int regs_per_sm = 65536;
  int warp_size = 32;
  std::size_t smem_per_block = 48 * 1024;
  std::size_t smem_per_sm = 0;
  std::size_t smem_per_block_optin = 0;
  std::size_t reserved_smem_per_block = 0;
};

struct LaunchFacts {
  long long grid_blocks = 0;       // gridX * gridY * gridZ
  int block_threads = 0;           // blockX * blockY * blockZ
  int registers_per_thread = 0;
  long long static_smem_bytes = 0;
  long long dynamic_smem_bytes = 0;
  long long local_mem_per_thread_bytes = 0;
};

struct Occupancy {
  bool ok = false;
  std::string error;               // why not, when !ok
  int blocks_per_sm = 0;
  double theoretical_pct = 0;      // resident warps / max warps per SM
  bool limited_by_registers = false;
  bool limited_by_shared_mem = false;
  bool limited_by_block_size = false;  // warps per block (or blocks per SM) set the limit
  double waves_per_sm = 0;         // grid blocks / (SMs x resident blocks per SM)
};

Occupancy theoretical_occupancy(const DeviceLimits& device, const LaunchFacts& launch);

// Launch facts and occupancy under METRICS.md names.
std::map<std::string, double> launch_metrics(const LaunchFacts& launch, const Occupancy& occ);

}  // namespace kernelblaster::runtime
