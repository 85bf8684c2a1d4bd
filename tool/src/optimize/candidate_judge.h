// The seam between the optimization loop and what decides whether a written
// kernel is correct and how fast it is: the engine on a GPU
// (engine_judge.h), or a scripted stand-in in the tests. The loop never
// judges code itself; everything it believes comes through here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "judge/candidate_result.h"

namespace kernelblaster::optimize {

// The engine's result (judge/candidate_result.h) with what the loop needs
// beside it. median_us and speedup are 0 unless ok.
struct Judgement : CandidateResult {
  std::string compiler_output;  // compile_failed: the compiler's lines, for the fix prompt
  bool reverified = false;      // an implausible speedup was looked at again
  std::map<std::string, double> metrics;  // the candidate's profile (dominant kernel); may be empty
  std::string plausibility;     // its time against what this GPU can do for the original's work (advice)
  std::vector<std::string> kernels_by_time;  // its profile's kernels, most GPU time first (demangled names)
  std::vector<std::map<std::string, double>> kernel_metrics;  // each one's metrics, in the same order
};

class CandidateJudge {
 public:
  virtual ~CandidateJudge() = default;
  // The original against itself: its time and profile, the base of the
  // first step. A status other than ok means nothing can be optimized.
  virtual Judgement judge_original() = 0;
  // `source` (the whole kernel source) against the original. `tag` names
  // the attempt ("t0-s1-a2") for scratch directories and logs.
  virtual Judgement judge(const std::string& source, const std::string& tag) = 0;
  // A fresh look at the winner with `seeds` new seeds before it is kept.
  virtual Judgement confirm(const std::string& source, const std::string& tag, int seeds) = 0;
};

}  // namespace kernelblaster::optimize
