// Running kernelblaster-gpu, the GPU program next to the tool, from the tool.
#pragma once

#include <string>

#include "profile/gpu_facts.h"

namespace kernelblaster::profile {

// KERNELBLASTER_GPU_HELPER, else kernelblaster-gpu next to `self_exe`.
std::string find_gpu_helper(const std::string& self_exe);

struct HelperOutcome {
  int exit_code = 2;     // 0 ok, 77 no GPU, else failure
  std::string message;   // one line when not ok
  GpuFacts facts;
};

// mode: "info" or "ceilings". Never throws.
HelperOutcome run_gpu_helper(const std::string& helper, const std::string& mode, int device, double timeout_s);

}  // namespace kernelblaster::profile
