// What the engine concluded about a candidate, in the one shape both loops
// read: the judge's Verdict (a typed Status and one line), and the
// CandidateResult the tuner's search measures and the optimize loop builds
// on (the run log's EvaluationRecord and the loop's Judgement add to it).
// A failed candidate is a result, never an exception.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "judge/result.h"

namespace kernelblaster {

struct Verdict {
  Status status = Status::ok;
  std::string detail;  // one line: what was caught, where
  bool verified() const { return status == Status::ok; }
};

// The call's speedup at one size (SizeTiming::speedup).
struct SizeSpeedup {
  std::string size;
  double speedup = 0;
  bool validation_only = false;  // timed on a second look only: not in `speedup`
};

struct CandidateResult : Verdict {
  double speedup = 0;              // over the original (median based); 0 unless ok
  double median_us = 0;            // the candidate's, geometric mean over the timed sizes
  double reference_median_us = 0;  // the original's, same sizes
  double compile_s = 0;            // building the candidate's program (the tuner: until it is ready to run)
  double eval_s = 0;               // its evaluation
  double screen_share = 1;         // EvalResult::screen_share
  // The kernel it makes slower, as one line (EvalResult::slower_kernel):
  // verified and measured, but never kept; empty when none is.
  std::string slower_kernel;
  double slowed_kernel_speedup = 0;  // with slower_kernel: the lowest speedup of a kernel it slows
  // A kernel slower at one size only (EvalResult::slower_at_a_size): said, may be kept.
  std::string slower_at_a_size;
  // The call at the validation sizes a second look timed (EvalResult::other_sizes).
  std::string other_sizes;
  // Kernels a loop of their own would not show faster (EvalResult::launch_paced).
  std::string launch_paced;
  // With back-to-back timing, each round's speedup (EvalResult's).
  double flushed_speedup = 0;
  double back_to_back_speedup = 0;
  // The call's speedup at each size timed, in the harness's order.
  std::vector<SizeSpeedup> sizes;
  // Each kernel's speedup over the timed sizes (kernels_over_sizes), by its
  // name; a kernel launched twice in the call is named once, its lower
  // speedup kept. Empty when the calls could not be compared kernel by kernel.
  std::map<std::string, double> kernel_speedups;
  // compute-sanitizer's memcheck on it, when asked (EvalResult::memcheck).
  std::string memcheck;
  // Where the evaluation's seconds went: its steps and each harness
  // process's own phases (EvalResult::phase_seconds and
  // process_phase_seconds), summed by name.
  std::map<std::string, double> phases_s;
  // Verified, and no kernel slower: a candidate a loop may keep.
  bool keepable() const { return verified() && slower_kernel.empty(); }
};

// An evaluation's conclusion as a CandidateResult (compile_s is the
// caller's: the evaluation may have run a program built earlier).
CandidateResult candidate_result_of(const EvalResult& r);

// Geometric mean of the candidate's and the reference's medians over the
// timed sizes (0 where no size was timed).
void medians_of(const EvalResult& r, double* candidate_us, double* reference_us);

}  // namespace kernelblaster
