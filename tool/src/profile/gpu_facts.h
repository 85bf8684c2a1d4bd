// What the GPU helper (kernelblaster-gpu) reports, as plain structs: device
// facts, counter support, and freshly measured ceilings.
#pragma once

#include <string>

#include "profile/ceilings_cache.h"

namespace kernelblaster::profile {

struct GpuFacts {
  GpuFingerprint fingerprint;
  long long memory_bytes = 0, l2_bytes = 0;
  double sm_clock_max_mhz = 0, memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  int cuda_driver_version = 0;
  std::string driver_version;
  std::string chip;            // CUPTI's chip name, e.g. "GH100"
  bool counters_supported = false;
  std::string counters_reason; // why not, when !counters_supported
  // Only from `ceilings`:
  double copy_memcpy_gbs = 0, copy_kernel_gbs = 0;
  double fp32_gflops = 0, fp16_gflops = 0, tensor_gflops = 0;
};

// Parses the helper's JSON; throws std::runtime_error with the reason.
GpuFacts gpu_facts_from_json(const std::string& text);
std::string gpu_facts_to_json(const GpuFacts& facts, bool with_ceilings);

// Ceilings of a measurement: the copy bandwidth is the better of the two copies.
CachedCeilings ceilings_from_facts(const GpuFacts& facts, const std::string& measured_at);

}  // namespace kernelblaster::profile
