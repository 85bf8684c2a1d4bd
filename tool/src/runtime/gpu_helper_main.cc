// kernelblaster-gpu: the small GPU program next to the `kernelblaster` tool,
// so that the tool itself never needs a GPU to start. The tool runs it for
// `kernelblaster gpu info` and `kernelblaster gpu ceilings`.
//
//   kernelblaster-gpu info     [--device N] --out FILE
//   kernelblaster-gpu ceilings [--device N] --out FILE
//
// Writes one JSON object to FILE. Exit 0, 2 on bad usage or a CUDA failure
// (one line on stderr), 77 without a GPU.
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "common/file_util.h"
#include "runtime/device_info.h"
#include "runtime/gpu_ceilings.h"
#include "runtime/gpu_lock.h"
#include "runtime/cupti_host_config.h"
#include "runtime/driver_version.h"

namespace {

using nlohmann::json;

// Whether the range profiler may read counters here, and if not, why.
json counter_support(int device) {
  json j;
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUptiResult r = cuptiProfilerInitialize(&init);
  if (r != CUPTI_SUCCESS) {
    j["supported"] = false;
    j["reason"] = kernelblaster::runtime::cupti_result_text(r);
    return j;
  }
  CUpti_Profiler_DeviceSupported_Params sup{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  sup.cuDevice = device;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  r = cuptiProfilerDeviceSupported(&sup);
  j["supported"] = r == CUPTI_SUCCESS && sup.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  if (r != CUPTI_SUCCESS) j["reason"] = kernelblaster::runtime::cupti_result_text(r);
  else if (!j["supported"].get<bool>())
    j["reason"] = "vGPU/confidential compute/CMP/WSL/SLI configuration refuses counters";
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<size_t>(device);
  if (cuptiDeviceGetChipName(&chip) == CUPTI_SUCCESS && chip.pChipName) j["chip"] = chip.pChipName;
  CUpti_Profiler_DeInitialize_Params fin{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  cuptiProfilerDeInitialize(&fin);
  return j;
}

json device_info(int device) {
  cudaDeviceProp p{};
  cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) throw std::runtime_error(std::string("device properties: ") + cudaGetErrorString(e));
  json j;
  j["name"] = p.name;
  j["cc_major"] = p.major;
  j["cc_minor"] = p.minor;
  j["sm_count"] = p.multiProcessorCount;
  j["memory_bytes"] = static_cast<long long>(p.totalGlobalMem);
  j["l2_bytes"] = p.l2CacheSize;
  j["smem_per_sm_bytes"] = static_cast<long long>(p.sharedMemPerMultiprocessor);
  j["regs_per_sm"] = p.regsPerMultiprocessor;
  j["max_threads_per_sm"] = p.maxThreadsPerMultiProcessor;
  int clock_khz = 0, mem_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  j["sm_clock_max_mhz"] = clock_khz / 1000.0;
  j["memory_clock_mhz"] = mem_khz / 1000.0;
  j["memory_bus_bits"] = bus_bits;
  int cuda_driver = 0;
  cudaDriverGetVersion(&cuda_driver);
  j["cuda_driver_version"] = cuda_driver;
  std::string kernel = kernelblaster::runtime::kernel_driver_version();
  j["driver_version"] = kernel;
  j["driver_major"] = kernelblaster::runtime::version_major(kernel);
  j["counters"] = counter_support(device);
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode, out;
  int device = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--device" && i + 1 < argc) device = std::atoi(argv[++i]);
    else if (mode.empty() && (a == "info" || a == "ceilings")) mode = a;
    else {
      std::fprintf(stderr, "usage: kernelblaster-gpu info|ceilings [--device N] --out FILE\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (mode.empty() || out.empty()) {
    std::fprintf(stderr, "usage: kernelblaster-gpu info|ceilings [--device N] --out FILE\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "no CUDA GPU\n");
    return 77;
  }
  if (device < 0 || device >= count) {
    std::fprintf(stderr, "no CUDA device %d (%d present)\n", device, count);
    return 2;
  }
  try {
    cudaSetDevice(device);
    json j = device_info(device);
    kernelblaster::GpuLock lock;
    if (mode == "ceilings") {
      // Measured with the GPU to itself, under the lock every evaluation
      // takes (a build may ask for them while another build's candidates
      // are timed on this GPU); the exit releases it.
      std::string why;
      if (!lock.acquire(kernelblaster::default_lock_dir(), kernelblaster::read_device_info(device).uuid, 60, &why))
        throw std::runtime_error("the GPU stayed busy: " + why);
      kernelblaster::MeasuredCeilings c = kernelblaster::measure_ceilings(device);
      j["copy_memcpy_gbs"] = c.copy_memcpy_gbs;
      j["copy_kernel_gbs"] = c.copy_kernel_gbs;
      j["fp32_gflops"] = c.fp32_gflops;
      j["fp16_gflops"] = c.fp16_gflops;
      j["tensor_gflops"] = c.tensor_gflops;
    }
    kernelblaster::write_file_atomic(out, j.dump(2));
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster-gpu: %s\n", x.what());
    return 2;
  }
  return 0;
}
