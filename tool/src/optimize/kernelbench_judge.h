// The judge of the optimization loop for a KernelBench-CUDA problem: each
// candidate takes init.cu's place beside the problem's libtorch driver and
// is judged by the same engine and judges as a native harness
// (kernelbench/evaluate.h): against init.cu's outputs and torch's, the
// driver's allclose as a second check. The driver's objects are built once
// in the work directory and reused. The original is judged with a full
// profile (taken in its driver process after timing), which the loop
// classifies the state from; where profiling fails, it is judged again
// without, and the state is the one the KB gives a kernel without metrics.
// Run on an H200 (2026-11-26): ReLU and Softmax classify as
// too_little_parallelism from the profile; RMSNorm's one-pass profile
// matched no rule, hence the full set.
#pragma once

#include <string>

#include "judge/candidate_build.h"
#include "judge/gpu_probe.h"
#include "optimize/candidate_judge.h"

namespace kernelblaster::optimize {

struct KernelBenchJudgeTarget {
  std::string problem_dir;   // init.cu + driver.cpp
  std::string arch;          // resolved
  std::string torch_prefix;  // empty: KERNELBLASTER_TORCH_PREFIX, then python3's torch
  std::string work_dir;      // absolute; shared by every evaluation of the run
  std::string lock_dir;
  int device = 0;
  int seeds = 3;
  double run_timeout_s = 180;
};

class KernelBenchJudge final : public CandidateJudge {
 public:
  KernelBenchJudge(Toolchain toolchain, GpuProbe& probe, KernelBenchJudgeTarget target);
  Judgement judge_original() override;
  Judgement judge(const std::string& source, const std::string& tag) override;
  Judgement confirm(const std::string& source, const std::string& tag, int seeds) override;

 private:
  Judgement evaluate(const std::string& candidate_path, int seeds, bool profiled = false);
  std::string write_candidate(const std::string& source, const std::string& tag);

  Toolchain m_toolchain;
  GpuProbe& m_probe;
  KernelBenchJudgeTarget m_target;
};

}  // namespace kernelblaster::optimize
