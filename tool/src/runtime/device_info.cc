#include "runtime/device_info.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "runtime/cuda_check.h"

namespace kernelblaster {

DeviceInfo read_device_info(int device) {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, device), "device properties");
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  cudaDriverGetVersion(&d.driver_version);
  char uuid[64];
  const unsigned char* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  d.uuid = uuid;
  return d;
}

}  // namespace kernelblaster
