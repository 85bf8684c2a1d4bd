#include "judge/gpu_probe.h"

#include <cuda_runtime.h>
#include <unistd.h>

namespace kernelblaster {

std::string nvidia_device_node() {
  for (const char* node : {"/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg"})
    if (::access(node, F_OK) == 0) return node;
  return "";
}

GpuInfo CudaGpuProbe::probe(int device) {
  GpuInfo info;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // The phrase `gpu info` uses too, with CUDA's own reason.
    info.reason = std::string("no CUDA GPU on this machine (CUDA: ") + cudaGetErrorString(e) + ")";
    return info;
  }
  if (device < 0 || device >= count) {
    info.reason = "no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " present)";
    return info;
  }
  cudaDeviceProp prop{};
  if ((e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) {
    info.reason = std::string("cannot query the GPU (") + cudaGetErrorString(e) + ")";
    return info;
  }
  info.present = true;
  info.name = prop.name;
  info.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  return info;
}

}  // namespace kernelblaster
