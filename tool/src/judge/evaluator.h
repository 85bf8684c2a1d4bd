// One evaluation: build the reference and the candidate, run each in its own
// process on the same plan, judge correctness and timing, and re-verify an
// implausible speedup before believing it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/subprocess.h"
#include "judge/candidate_build.h"
#include "judge/gpu_probe.h"
#include "judge/reference_runs.h"
#include "judge/result.h"
#include "judge/sandbox.h"
#include "profile/metric_sets.h"

namespace kernelblaster {

// A candidate whose process runs kCandidateTimeFactor times longer than the
// original's on the same plan cannot be the faster one: it is stopped there
// (never before kMinCandidateTimeout, never after the run's own timeout), so
// a configuration that makes a kernel crawl costs seconds, not the whole
// timeout (issue 38: one SGEMM_CUDA tile cost 64 s of a 283 s tuning).
inline constexpr int kCandidateTimeFactor = 8;
inline constexpr double kMinCandidateTimeout = 15;
double candidate_deadline(double timeout_s, double reference_seconds);

struct EvalRequest {
  std::string source;     // the original kernel source: the reference
  std::string candidate;  // empty: the source against itself
  std::string harness;    // native harness source
  CompileSettings compile;
  // Definitions ("NAME=VALUE") for the candidate's build alone: the tuned
  // values a reshaped replay harness reads (tuner/replay_shapes.h).
  std::vector<std::string> candidate_definitions;
  int seeds = 3;                       // fresh seeds per size (at least 3)
  // The harness's validation sizes in the first round too, not only when a
  // candidate is looked at again: a winner is checked on every shape.
  bool validation_sizes = false;
  // A search's screen of a candidate (the tuner's, between a run's looks at
  // its winner): the first round runs each size with one seed, the timed
  // sizes again in reverse, and checks one timed call a size
  // (judge/plan_builder.h); every other check is the same. A candidate that
  // passes is believed only after a look without it. One whose correctness
  // runs fail is stopped before its timing (judge/early_look.h): its
  // verdict is that failure, and the checks a whole run gets before
  // correctness (how the process ended, untimed work, isolation, state left
  // behind) are not made.
  bool screening = false;
  // Time the validation sizes too (a winner's second look): each is
  // reported (SizeTiming::validation_only, EvalResult::other_sizes) and none
  // enters the speedup, which stays the one the search compared.
  bool time_every_size = false;
  // With time_every_size: validation sizes (by label) checked but not
  // timed, where the candidate runs the original's code as written (a
  // guarded source, tuner/guarded_winner.h): their time says nothing new.
  std::vector<std::string> untimed_sizes;
  // Time again as a program that calls the launcher in a loop sees it:
  // back to back, the L2 warm from the call before (the first timing calls
  // once a run with the L2 flushed); the lower speedup is the one kept.
  bool back_to_back = false;
  // The candidate's host code is not trusted (eval --candidate, the
  // optimize loop's): before anything runs, its compiled object is held to
  // the bound of judge/object_bound.h; past it the result is forbidden_code.
  bool untrusted = false;
  std::uint64_t seed_base = 0;         // 0: fresh random seeds
  double run_timeout_s = 60;           // per harness process
  double build_timeout_s = 300;        // per nvcc
  double budget_ms = 300;              // timed runs per size
  bool timing = true;
  double implausible_speedup = 20;     // re-verify above this
  int device = 0;
  std::string work_dir;                // scratch root; empty: a temporary directory
  bool keep_work_dir = false;
  std::string lock_dir;                // per-GPU lock directory
  // cheap (one-pass counters) or full; none when absent. An accepted
  // candidate's profile rides in its main-round process after timing
  // (EvalResult::profile).
  std::optional<profile::MetricSet> profile;
  // Harness programs the caller already built from `source` and `candidate`
  // with `compile` (the tuner builds many candidates once, in parallel, and
  // the reference once for all): a non-empty path skips that build.
  std::string reference_binary;
  std::string candidate_binary;
  // The original's runs kept between evaluations (judge/reference_runs.h):
  // with a fixed `seed_base`, an evaluation judges against the original's
  // run on the same plan when one was taken within its reuse window instead
  // of running the original again. Ignored for an untrusted candidate.
  std::shared_ptr<ReferenceRuns> reference_runs;
  // Once the candidate passed, its program once more under compute-
  // sanitizer's memcheck, one seed per size (judge/memcheck.h): an invalid
  // access it reports makes the result out_of_bounds. `tool` empty: not
  // run, and the result's memcheck line says `missing`.
  struct Memcheck {
    bool wanted = false;
    std::string tool;
    std::string missing;
  } memcheck;
  // Builds the candidate's program while the original's process runs (the
  // KernelBench path, whose original is built once per problem): a build
  // that fails stops that process at once and ends as compile_failed.
  // Used when `candidate_binary` is empty and `reference_binary` is given.
  std::function<BuildOutcome()> build_candidate;
};

class Evaluator {
 public:
  Evaluator(Toolchain toolchain, GpuProbe& probe) : m_toolchain(std::move(toolchain)), m_probe(probe) {}
  // Never throws for a bad candidate; throws std::runtime_error only for
  // misuse the caller must report (missing files, unwritable work dir).
  EvalResult evaluate(const EvalRequest& request);

 private:
  Toolchain m_toolchain;
  GpuProbe& m_probe;
};


}  // namespace kernelblaster
