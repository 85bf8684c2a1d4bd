// The judge of the optimization loop on a GPU: each candidate is written
// into a scratch directory of its own, built with the harness by nvcc (the
// compiler's output kept for the fix prompt), and evaluated by the engine
// against the original's program, built once, in child processes under the
// harness limits (eval/evaluator.h). The original's and every verified
// candidate's cheap profile ride in the same processes.
#pragma once

#include <string>

#include "eval/candidate_build.h"
#include "eval/evaluator.h"
#include "eval/gpu_probe.h"
#include "optimize/candidate_judge.h"

namespace kernelblaster::optimize {

struct EngineJudgeTarget {
  std::string source;        // the original, absolute
  std::string harness;       // absolute
  CompileSettings compile;   // arch resolved; include dirs absolute, the source's own directory among them
  std::string work_dir;      // scratch root, absolute
  std::string lock_dir;
  int device = 0;
  int seeds = 3;
  double budget_ms = 300;
  double run_timeout_s = 60;
  double build_timeout_s = 300;
};

class EngineJudge final : public CandidateJudge {
 public:
  EngineJudge(Toolchain toolchain, GpuProbe& probe, EngineJudgeTarget target);
  Verdict judge_original() override;
  Verdict judge(const std::string& source, const std::string& tag) override;
  Verdict confirm(const std::string& source, const std::string& tag, int seeds) override;

 private:
  Verdict evaluate(const std::string& binary, int seeds, bool profiled, const std::string& work);
  Verdict build(const std::string& source, const std::string& tag, std::string* binary);

  Toolchain m_toolchain;
  GpuProbe& m_probe;
  EngineJudgeTarget m_target;
  std::string m_reference_binary;
};

// The engine's result as the loop sees it.
Verdict verdict_of(const EvalResult& result);

}  // namespace kernelblaster::optimize
