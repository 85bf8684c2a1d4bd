// Evaluation of a candidate for a KernelBench-CUDA problem: the problem's own
// libtorch driver judges correctness (outputs poisoned, several seeds), and
// the shim linked into it times the launcher device-wide.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/result.h"

namespace kernelblaster::kernelbench {

struct KernelBenchRequest {
  std::string problem_dir;      // holds init.cu and driver.cpp
  std::string candidate_path;   // empty: init.cu itself
  std::string work_dir;         // build products; reused across calls (objects are cached)
  std::string nvcc = "nvcc";
  std::string cxx = "g++";      // compiles the driver and links
  std::string arch = "sm_90";
  std::vector<std::string> extra_nvcc_flags;  // for the kernel sources
  std::string torch_prefix;     // empty: KERNELBLASTER_TORCH_PREFIX, then python3's torch
  int seeds = 3;
  std::uint64_t base_seed = 1;
  double timeout_s = 120;       // per driver process
  double compile_timeout_s = 600;
  double timing_budget_ms = 300;
  bool timing = true;
  double implausible_speedup = 20;  // re-verify above this
  std::string harness_lib;          // libkernelblaster_harness.a
  std::string harness_include_dir;  // tool/include
  std::string shim_lib;             // libkb_kernelbench_shim.a; empty: compile it from source_dir
  std::string source_dir;           // KernelBlaster's tool/src (holds kernelbench/shim.cc)
  std::string cuda_lib_dir;         // empty: next to nvcc (../lib64)
};

EvalResult evaluate_kernelbench(const KernelBenchRequest& req);

}  // namespace kernelblaster::kernelbench
