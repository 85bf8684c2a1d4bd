// Evaluation of a candidate for a KernelBench-CUDA problem. The problem's
// libtorch driver is rewritten (driver_rewrite.h) and linked once with
// init.cu and once with the candidate; each program then runs as a harness
// process under the same Evaluator, plan and judges as a native harness
// (tool/src/judge): the tool's comparison decides, against init.cu's outputs
// and against torch's, and the driver's own allclose is a second check.
#pragma once

#include <string>
#include <vector>

#include "judge/evaluator.h"

namespace kernelblaster::kernelbench {

struct KernelBenchRequest {
  std::string problem_dir;      // holds init.cu and driver.cpp
  std::string candidate_path;   // empty: init.cu itself
  std::string work_dir;         // build products and run directories; objects are reused across calls
  std::string cxx = "g++";      // compiles the driver and links
  std::string arch = "sm_90";
  std::vector<std::string> extra_nvcc_flags;  // for the kernel sources
  std::string torch_prefix;     // empty: KERNELBLASTER_TORCH_PREFIX, then python3's torch
  double compile_timeout_s = 600;
  // Seeds, timing budget, deadlines, re-verification, device and GPU lock:
  // as for a native harness. Its source, harness and binaries are filled in here.
  EvalRequest run;
};

// Builds both programs (reusing unchanged objects in `work_dir`) and
// evaluates. Never throws for a bad candidate or problem: those are results.
EvalResult evaluate_kernelbench(const KernelBenchRequest& req, const Toolchain& toolchain, GpuProbe& probe);

}  // namespace kernelblaster::kernelbench
