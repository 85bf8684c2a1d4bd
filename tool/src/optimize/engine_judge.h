// The judge of the optimization loop on a GPU: each candidate is written
// into a scratch directory of its own, built with the harness by nvcc (the
// compiler's output kept for the fix prompt), and evaluated by the engine
// against the original's program, built once, in child processes under the
// harness limits (judge/evaluator.h). The original's and every judged
// candidate's profile (the full metric set, which the state rules need)
// ride in the same processes.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "judge/candidate_build.h"
#include "judge/engine_target.h"
#include "judge/evaluator.h"
#include "judge/gpu_probe.h"
#include "optimize/candidate_judge.h"

namespace kernelblaster::optimize {

class EngineJudge final : public CandidateJudge {
 public:
  // The target as the tuner's measurer takes it (its source_text unused);
  // everything is measured on `device`.
  EngineJudge(Toolchain toolchain, GpuProbe& probe, EngineTarget target, int device);
  Judgement judge_original() override;
  Judgement judge(const std::string& source, const std::string& tag) override;
  Judgement confirm(const std::string& source, const std::string& tag, int seeds) override;

 private:
  Judgement evaluate(const std::string& binary, int seeds, bool profiled, const std::string& work);
  // Builds `source` once: the same text again (the winner's second look)
  // reuses its program.
  Judgement build(const std::string& source, const std::string& tag, std::string* binary);

  Toolchain m_toolchain;
  GpuProbe& m_probe;
  EngineTarget m_target;
  int m_device;
  std::string m_reference_binary;
  std::map<std::string, std::string> m_binaries;  // source text -> its harness program
};

// The engine's result as the loop sees it.
Judgement judgement_of(const EvalResult& result);
// judgement_of(evaluate()); a tool_error with the exception's text when it
// throws (the loop goes on).
Judgement judgement_of(const std::function<EvalResult()>& evaluate);

}  // namespace kernelblaster::optimize
