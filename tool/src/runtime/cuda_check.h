// CUDA errors inside a runtime process (native session or KernelBench
// driver): one exception type, and which errors are the candidate's launch
// (bad configuration, too many resources) rather than a crash.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace kernelblaster {

struct CudaFailure : std::runtime_error {
  CudaFailure(const std::string& what, bool launch) : std::runtime_error(what), launch(launch) {}
  bool launch;
};

inline bool is_launch_error(cudaError_t e) {
  return e == cudaErrorLaunchOutOfResources || e == cudaErrorInvalidConfiguration ||
         e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice ||
         e == cudaErrorInvalidPtx || e == cudaErrorSharedObjectInitFailed || e == cudaErrorInvalidValue ||
         e == cudaErrorInvalidPitchValue;
}

inline void cuda_check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw CudaFailure(what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")", is_launch_error(e));
}

}  // namespace kernelblaster
