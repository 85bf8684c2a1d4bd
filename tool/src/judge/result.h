// What an evaluation concludes about a candidate. A failed candidate is a
// result, never an exception (KTT's ResultStatus habit).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "judge/calibration.h"
#include "profile/kernel_profile.h"
#include "runtime/compare.h"

namespace kernelblaster {

struct RunCheck {
  int run = 0;
  std::string size;
  unsigned long long seed = 0;
  int timed_call = -1;       // a checked timed call: its index among the timed runs; -1: a correctness run
  bool passed = true;
  std::vector<OutputError> errors;         // against the original
  std::vector<OutputError> oracle_errors;  // against the oracle, where there is one
  std::vector<std::string> inputs_modified;
};

// One kernel of the call against the original's (judge/kernel_speeds.h).
struct KernelSpeed {
  std::string name;  // without template arguments
  double median_us = 0, reference_median_us = 0;
  double speedup = 0;
  double optimistic_speedup = 0;  // the original's q3 over the candidate's q1: the most favourable reading
  bool slower = false;  // at this size: beyond kKernelSlowerLimit and the spread of both samples
};

struct SizeTiming {
  std::string size;
  bool validation_only = false;  // timed on a second look only: not in the speedup
  std::string method;        // "cupti" or "events"
  int runs = 0;
  double median_us = 0, q1_us = 0, q3_us = 0, min_us = 0;
  double event_median_us = 0;
  double busy_median_us = 0, reference_busy_median_us = 0;  // GPU busy time (TimingReport::busy_median_ns)
  double kernels_per_run = 0;
  // The host's time to issue one call's launches (TimingReport::issue_median_ns), each side's.
  double issue_us = 0, reference_issue_us = 0;
  double repeat_median_us = 0;
  double sm_clock_mhz = 0;
  double reference_median_us = 0;
  double speedup = 0;        // reference cost / candidate cost (judge.h, call_costs)
  std::string basis;         // "busy" (GPU busy time) or "span" (no busy times: CUDA events)
  double cost_us = 0, reference_cost_us = 0;  // what the speedup divides (on the basis)
  double cost_q1_us = 0, cost_q3_us = 0;      // the candidate's cost spread (the speed gate's noise)
  double charged_idle_us = 0;  // idle time beyond the original's allowance, added to the candidate's cost
  std::vector<KernelSpeed> kernels;  // kernel by kernel, where both calls launch the same kernels
};

// The candidate's time against what the original's calls must do on this
// GPU (judge/plausibility.h): advice, shown with every result.
struct Plausibility {
  bool assessed = false;          // ceilings and a time were there to compare
  std::string size;               // the size the numbers are of
  double input_bytes = 0;         // read per call at least
  double flops = -1;              // declared per call; < 0: none declared
  double cost_us = 0;             // the candidate's time per call
  double bandwidth_gbs = 0, bandwidth_ceiling_gbs = 0, bandwidth_ratio = 0;
  double gflops = 0, compute_ceiling_gflops = 0, compute_ratio = 0;
  bool implausible = false;       // a ratio beyond kImplausibleRatio
  std::string line;               // one line for the result and the report
};

// How the evaluation's harness processes were held (ProcessLimits), over
// all of them: the original's, the candidate's, the description.
struct SandboxRecord {
  int processes = 0;
  bool network_isolated = false;          // every one ran without network
  std::uint64_t memory_limit_bytes = 0;   // what each could hold resident (0: no limit)
  std::uint64_t peak_resident_bytes = 0;  // the most any one held (with its descendants)
  int strays_killed = 0;                  // processes that left their group, killed
  // Every candidate process ran with the original's run directory hidden
  // (its own view of the file system: judge/sandbox.h).
  int candidate_processes = 0;
  bool original_hidden = false;

  void add(bool isolated, std::uint64_t limit, std::uint64_t peak, int strays);
  void add_candidate(bool hidden);
  void add(const SandboxRecord& other);
};

struct EvalResult {
  Status status = Status::ok;
  std::string detail;        // one line: what was caught, where
  std::vector<RunCheck> checks;
  // Per output: how far the original is from the oracle and from itself,
  // and the tolerances the candidate was held to (judge/calibration.h).
  std::vector<OutputCalibration> calibration;
  std::vector<SizeTiming> timing;
  double speedup = 0;        // geometric mean over timed sizes; 0 when not measured
  // With back-to-back timing (EvalRequest::back_to_back): each round's
  // speedup, the flushed one and the back-to-back one; `speedup` is the
  // lower. 0 when that round did not time.
  double flushed_speedup = 0;
  double back_to_back_speedup = 0;
  bool reverified = false;   // an implausible speedup was checked again
  // The first kernel the candidate makes slower over the timed sizes, in
  // any timing round (flushed, or back to back), as one line; empty when
  // none is. Such a candidate is verified, and never kept
  // (judge/kernel_speeds.h).
  std::string slower_kernel;
  // A kernel slower at one size and not over the sizes, as one line: said
  // wherever the result is, no reason to refuse it.
  std::string slower_at_a_size;
  // The call at the validation sizes, when a second look timed them
  // (judge/kernel_speeds.h other_sizes_text); empty when not timed.
  std::string other_sizes;
  // Kernels the back-to-back round found faster but shorter than the
  // host's time to launch one (judge/kernel_speeds.h launch_paced_text):
  // a program launching one alone in a loop sees little of the gain. Said,
  // no reason to refuse; empty when none or not timed back to back.
  std::string launch_paced;
  std::string device;
  std::vector<std::string> notes;
  // What compute-sanitizer's memcheck said of the candidate, when asked
  // (EvalRequest::memcheck): no invalid access, the first one, or why it
  // did not run. Empty when not asked.
  std::string memcheck;
  // A screen (EvalRequest::screening): its correctness runs and checked
  // timed calls over those a full check of the same sizes makes, in (0, 1];
  // 1 for a full check. A look at a screened winner costs about 1 / share
  // of its screen, and more (a tuning run's reserve for it: tuner/search_loop.h).
  double screen_share = 1;
  double eval_seconds = 0;   // compile excluded, where nothing ran beside it
  double compile_seconds = 0;  // the builds' own time (a KernelBench candidate's overlaps the original's run)
  // The whole evaluation as its caller waited for it, builds included
  // (a KernelBench driver's one-time build too: see prepare_seconds).
  double wall_seconds = 0;
  // One-time work the input format needed before any candidate (building a
  // KernelBench driver); later evaluations in the same work directory reuse it.
  double prepare_seconds = 0;
  // Where eval_seconds went, in order ("reference process", "calibration",
  // "candidate process", "judging"; a re-verification adds its own).
  std::vector<std::pair<std::string, double>> phase_seconds;
  // The phases of the original's own run: made by the first evaluation of
  // a search and reused by the others (a tuning loop's pace leaves them out).
  static constexpr const char* kReferenceProcessPhase = "reference process";
  static constexpr const char* kCalibrationPhase = "calibration";
  // Inside those processes: each one's own phases ("reference setup",
  // "candidate correctness", ...) and its start and exit.
  std::vector<std::pair<std::string, double>> process_phase_seconds;
  // The candidate's kernels from one profiled call of the largest size,
  // dominant kernel first (EvalRequest::profile); never used as timing.
  std::vector<KernelProfile> profile;
  std::string profile_note;  // empty when counters were collected; else one line why not
  double profile_seconds = 0;
  SandboxRecord sandbox;
  Plausibility plausibility;
};

std::string result_to_json(const EvalResult& r);
// Human-readable summary, a few lines.
std::string result_to_text(const EvalResult& r);

}  // namespace kernelblaster
