// What a kernel activity record says about one launch: the launch facts the
// profiler reports (registers, shared and local memory, grid and block).
#pragma once

#include <cstdint>
#include <string>

namespace kernelblaster {

struct KernelLaunchRecord {
  std::uint32_t correlation_id = 0;
  std::string name;  // mangled, as the driver names it
  std::uint64_t start = 0, end = 0;
  int registers_per_thread = 0;
  long long static_smem_bytes = 0, dynamic_smem_bytes = 0;
  long long local_mem_per_thread_bytes = 0;
  long long grid_x = 0, grid_y = 0, grid_z = 0;
  int block_x = 0, block_y = 0, block_z = 0;
};

}  // namespace kernelblaster
