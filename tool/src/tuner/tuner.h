// One tuning run of a source + harness, what `kernelblaster tune` does:
// declare the space, warm-start from the KB, search (compiling the likely
// first picks while the original is built and profiled), re-verify the
// winner with fresh seeds on every GPU, write it, and let the KB learn from
// every outcome.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "judge/gpu_probe.h"
#include "judge/result.h"
#include "tuner/focused_winner.h"
#include "tuner/reverify.h"

namespace kernelblaster::tuner {

struct TuneOptions {
  std::string source, harness, manifest;
  std::vector<std::string> include_dirs, definitions;
  std::string arch;              // empty: the GPU's own
  std::string out;               // the tuned source; written only on success
  std::string log;               // the run log (written whatever the outcome)
  double budget_s = 60;
  int max_evals = 0;             // 0: no cap
  std::string policy;            // Lua file; empty or "default": the built-in one
  std::string kb;                // user KB; empty: KERNELBLASTER_KB or the default path
  double min_speedup = 1.02;
  std::uint64_t seed = 0;
  std::vector<int> devices;      // empty: every visible GPU
  bool no_flags = false;
  // The harness runs only part of the source's kernels: only the launch
  // sites it runs are searched, and no flag (harness_space.h).
  bool partial_harness = false;
  bool quiet = false;
  std::string name;              // the kernel's name in lines and logs; empty: the source's file name
  int seeds = 3;                 // per measurement
  double budget_ms = 300;        // timed runs per size per measurement (the winner's look)
  // Timed runs per size in a search's screen: its timing only ranks a
  // candidate, the winner's look times it again at budget_ms. SGEMM_CUDA's
  // runner.cu spent 0.78 s of a 1.5-s screen timing two sizes at 300 ms
  // (an H100, 2026-12-07).
  double screen_budget_ms = 100;
  double run_timeout_s = 60;
  // Where the search's state is kept between runs of this source on this
  // GPU (search_state.h: the results cache's tuning/<key>); empty: nothing
  // kept, each run starts afresh. With fresh_search, an earlier state is
  // not resumed (MODE TUNE), but the original's kept builds are used.
  std::string state_dir;
  bool fresh_search = false;
  // A configuration to measure first ("NAME=VALUE,...,-flag": start_from.h),
  // the source's last winner on this GPU; empty: none. One not in today's
  // space is said and left.
  std::string start_from;
};

// How a tune run ended; named only in its JSON summary.
// not_measured: nothing could be measured (the original does not build or
// run with its harness, the harness cannot be used, or nvcc cannot run): no
// "nothing beat the original", and never cached as one. failed: a winner
// failed its second look.
enum class TuneVerdict { tuned, no_gain, failed, no_gpu, not_measured };
const char* tune_verdict_name(TuneVerdict v);

struct TuneSummary {
  int exit_code = 2;             // 0 written, 1 not worth it / failed to tune, 3 not measured, 77 no GPU
  TuneVerdict status = TuneVerdict::failed;
  std::string reason;            // one line when not tuned
  std::string source;
  std::string out;
  double speedup = 0;            // re-verified, over the original (the lowest over the GPUs)
  double search_speedup = 0;     // what the search measured
  std::map<std::string, std::string> config;  // every tunable of the winner
  std::map<std::string, std::string> original_config;  // every tunable as the source has it
  // Each kernel's speedup in the winner's look (CandidateResult::kernel_speedups);
  // composed winners: each kept group's kernels from its own look.
  std::map<std::string, double> kernel_speedups;
  std::vector<std::string> flags;             // nvcc flags the tuned source needs ("-arch=sm_90a" included)
  // Configurations measured so far, earlier runs of a resumed search
  // included (search_state.h), and of them in this run; `outcomes` and
  // `duplicates` count them all.
  int evaluations = 0, duplicates = 0, space_size = 0;
  int evaluations_now = 0;
  int builds_searched = 0;  // runs that searched this state, this one included (0: none kept)
  bool continues = false;   // the search is not over: the next run resumes it
  // Every evaluation found the original failing with its harness, or the
  // harness unusable (a not_measured run): the harness is at fault, not a
  // candidate (a synthesized one may be made another way: harness/capture_step.h).
  bool harness_failed = false;
  // Seconds this run spent before its search (the space, the original's
  // build and profile): the build line names them past a tenth of the budget.
  double preparation_s = 0;
  // How the tries ended, by outcome name ("ok", "wrong_result", "crashed",
  // ...; "duplicate": the machine code of one already measured).
  std::map<Status, int> outcomes;  // how the tries that ran ended (duplicates apart); named in the JSON
  long long space_valid = 0;                  // valid configurations before thinning (space_size: after), the original excluded
  double seconds = 0;                         // the whole run
  std::map<std::string, double> phases_s;     // where the seconds went (tune_phases.h)
  // Where each look after the search spent its seconds, by look
  // ("reverify", "whole", "guard"): CandidateResult::phases_s, summed.
  std::map<std::string, std::map<std::string, double>> look_phases_s;
  double first_measurement_s = 0;             // from the search's start to its first measured result
  int builds = 0;                             // candidates compiled (or asked to be)
  std::string search_stop;                    // why the search ended (search_stop_name)
  int speculative_builds = 0;                 // of those, started on a guess before the search
  int speculative_builds_used = 0;            // guesses the search then evaluated
  // One per GPU; empty when there was no winner to check. The summary gives
  // each one's speedup and what it is made of: each timing round's (the
  // lower is kept) and the kept round's at each size. The examples' written
  // figures moved 6% between two days for one configuration (an H200,
  // 2026-11-30), and the summary could not say where.
  std::vector<DeviceCheck> reverification;
  double reference_median_us = 0, best_median_us = 0;
  std::string gpu, arch, state = "unclassified", policy;
  bool fell_back_to_default = false;
  std::string policy_failure;  // why, when it fell back: the policy's one line
  std::vector<int> devices;
  // Judged group by group (launcher_focus.h): how many groups could be, and
  // the composition of the winner (focused_winner.h); empty otherwise.
  int focused_groups = 0;
  std::vector<GroupResult> launcher_groups;
  double whole_speedup = 0;   // the composed winner on the whole harness; 0: not checked
  std::string per_launcher;   // FocusedWinner::summary() of a tuned result
  // A harness of several launchers not judged group by group: the winner
  // is timed again on each launcher alone (EngineMeasurer::
  // remeasure_each_alone), and none may be slower. How many; 0: none.
  int launchers_alone = 0;
  // compute-sanitizer's memcheck on the winner (judge/memcheck.h): no
  // invalid access, or why it was not checked; empty when no winner.
  std::string memcheck;
  // A kernel the winner makes slower at one timed size while faster over
  // them (judge/kernel_speeds.h): said in the build line, not a refusal.
  std::string slower_at_a_size;
  // The winner at the recorded sizes the search does not time, timed on its
  // second look (EvalResult::other_sizes): said, not a refusal.
  std::string other_sizes;
  // Kernels the winner made faster that now run shorter than the host takes
  // to launch one (EvalResult::launch_paced): said, not a refusal.
  std::string launch_paced;
  // Where the winner's call was slower on its second look: the launcher
  // kept as written at those shapes, or why not (guarded_winner.h); "" when
  // it was slower at none.
  std::string shape_guard;
  // The winner at its launchers' branch edges (edge_check.h): what was checked and found; empty: no edge.
  std::string edge_check;
};

// `log_line` prints one line of progress or warning (stderr in the tool).
// Throws std::runtime_error for misuse (missing files, malformed
// declarations): the command turns it into one line and exit 2.
TuneSummary run_tune(const TuneOptions& options, const std::string& self_exe, GpuProbe& probe,
                     void (*log_line)(const std::string&));

std::string tune_summary_to_json(const TuneSummary& s);

}  // namespace kernelblaster::tuner
