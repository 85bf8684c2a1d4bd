// The search: ask the policy for the next configuration, build it (ahead,
// on the CPU pool), measure it on a free GPU, tell the policy, keep the
// fastest verified configuration it accepts. Stops at the deadline, at the
// evaluation cap, when the space is exhausted or when the policy says so.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "policy/policy.h"
#include "tuner/config_space.h"
#include "tuner/measurer.h"
#include "tuner/run_log.h"

namespace kernelblaster::tuner {

struct LoopOptions {
  int max_evals = 0;                    // configurations to select; 0: no cap
  double budget_s = 60;                 // no measurement that would end after this starts (at the pace
                                        // of those ended so far); <= 0: no deadline
  double finish_paces = 0;              // measurements' worth of the budget kept for after the loop
                                        // (the winner's re-verification, a whole-harness check), at
                                        // the pace measured, at most half the budget; none before a
                                        // measurement has ended. A screened measurement
                                        // (CandidateResult::screen_share) counts as 1 / share of
                                        // its time here: the look runs what the screen left out.
  double finish_untimed = 0;            // and runs after the loop that time nothing (memcheck, the
                                        // check at branch edges), at a search measurement's own
                                        // pace. Counted as full checks they took 4 of the 7 paces
                                        // the examples kept and ran in 1 s (an H200, 2026-11-30:
                                        // memcheck 0.5 s, edges 0.5 s; SGEMM_CUDA 1.3-2.9 s and
                                        // 0.9-1.1 s at paces of about 2 s), and 30-s runs ended 5 s
                                        // early. Same cap and conditions as finish_paces.
  // The reserve of finish_paces is kept once the best accepted speedup
  // reaches this (--min-speedup: a winner the run will look at); before,
  // the loop searches on, and a winner found late ends the run past the
  // deadline by its checks, at most about half the budget. 0: kept from
  // the first measurement on.
  double reserve_from_speedup = 0;
  // Each part (a group of launch sites searched in turn) whose best reaches
  // this gets a look of its own after the loop (tuner/focused_winner.h):
  // the reserve of finish_paces is kept once for each such part, at least
  // once. SGEMM_CUDA's kernels 5 and 6 (an H200, 2026-11-30) spent 94 s on
  // two groups' looks after a loop that had kept 46 s for one. 0: once.
  double look_from_speedup = 0;
  // Whether the evaluations so far (earlier runs' included) hold a best the
  // run would look at (resume.h look_stands); false: no reserve is kept,
  // the earlier look stands. Empty: always.
  std::function<bool(const std::vector<EvaluationRecord>&)> look_due;
  std::vector<int> devices = {0};       // one measurement at a time on each
  int prefetch = 4;                     // further picks of the policy prepared ahead
  // Configurations (ids) whose builds started before the loop
  // (speculation.h): counted as asked, so the device measures one of them
  // once built rather than idle while the policy's picks all still build.
  std::vector<std::string> built_ahead;
  // Configurations (ids) measured before the policy's picks, in this order:
  // the source's last winner on this GPU (TuneOptions::start_from). A
  // re-tune after an edit that keeps the old winner valid measures it
  // first, and keeps it unless something beats it.
  std::vector<std::string> first_picks;
  // Evaluations of earlier runs of this search (search_state.h), in their
  // order: taken, told to the policy as its history, their machine code
  // known; none is measured again. One of a configuration the space no
  // longer holds is left out. The outcome lists them first.
  std::vector<EvaluationRecord> earlier;
  double first_pace_s = 0;              // seconds a measurement is expected to take before one has
                                        // ended (the original's build and run); 0: unknown
  std::uint64_t seed = 0;
  policy::KernelFacts facts = {.state = "unclassified"};  // what the policy's context says about the kernel
};

struct LoopProgress {
  int done = 0;         // evaluations completed
  int total = 0;        // what the run can reach: the space, or the cap
  double best_speedup = 1.0;
  std::string best_id;  // empty: none yet
  const EvaluationRecord* last = nullptr;
  double elapsed_s = 0;        // since the run started
  double seconds_left = -1;    // of the budget; < 0: no budget
};

// About how many more evaluations the run will make: what is left of the
// space or cap, and, under a budget, what the pace so far fits into the
// seconds left.
int evaluations_left_estimate(const LoopProgress& p);

// Why a search stopped: every configuration taken, the evaluation cap, the
// budget's deadline, the policy's stop(), or the original failing to judge
// (reference_failed) on several candidates in a row with none verified.
// deadline: no measurement would end in time; build_past_deadline: one
// would, but the pick's build would not, and nothing built was left to
// measure instead.
enum class SearchStop { running, space_exhausted, evaluation_cap, deadline, build_past_deadline, policy, original_failed };
// "space exhausted", "evaluation cap", "deadline", "build past deadline", "policy", "original failed"
const char* search_stop_name(SearchStop s);

struct LoopOutcome {
  std::vector<EvaluationRecord> evaluations;  // in completion order, the earlier runs' first
  int earlier = 0;                            // of them, from earlier runs (LoopOptions::earlier)
  int best = -1;                              // index into evaluations; -1: none verified and accepted
  // The fastest verified evaluation faster than the original as a whole
  // but never kept because it made a kernel slower
  // (CandidateResult::slower_kernel); -1: none.
  int best_slowing = -1;
  int duplicates = 0;
  int measured = 0;
  SearchStop stop = SearchStop::running;  // why the loop stopped (search_stop_name: its name in JSON)
  double seconds = 0;
  double pace_s = 0;  // a measurement's own seconds, on average over this run's (0: none measured)
};

class SearchLoop {
 public:
  // `estimates` (one per config of `space`) are what the KB says; `clock`
  // returns seconds on any monotonic scale.
  SearchLoop(const ConfigSpace& space, std::vector<policy::KbEstimate> estimates, Measurer& measurer,
             policy::Policy& policy, std::function<double()> clock);
  LoopOutcome run(const LoopOptions& options, const std::function<void(const LoopProgress&)>& progress = {});

 private:
  class Run;  // one run's state and steps (search_loop.cc)
  const ConfigSpace& m_space;
  std::vector<policy::KbEstimate> m_estimates;
  Measurer& m_measurer;
  policy::Policy& m_policy;
  std::function<double()> m_clock;
};

// The loop's prefetch for a compile pool of `pool_threads`: a pick for each
// thread, at least two.
int prefetch_for_pool(int pool_threads);

// What a run can reach: the space, or the evaluation cap.
int reachable(const ConfigSpace& space, const LoopOptions& opt);

// Each configuration's part (Configuration::part), numbered in the order
// the parts first appear; `parts`: how many (at least 1). One part for all
// where a configuration mixes a group's tunables with others: the parts
// then share dimensions (the examples' rewrite groups vary with their
// BLOCK_SIZE), and one walk over all of them finds moves across them.
std::vector<std::size_t> part_numbers(const ConfigSpace& space, std::size_t* parts);

// The contexts of a run's first select() in each part of the space
// (Configuration::part), in the order the parts first appear: each part's
// configurations untried, no history, an even share of the evaluations.
// What SearchLoop::run shows the policy first, part by part.
std::vector<policy::Context> first_contexts(const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                                            const LoopOptions& opt);

// The context of a run's first select() over the whole space, its parts
// together: every configuration untried, no history, the whole budget.
policy::Context first_context(const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                              const LoopOptions& options);

// The action a configuration stands for in a policy context: id, technique
// (the settings' techniques, "+"-joined), every tunable value, and its flags
// under "flags" (space-separated).
policy::Action action_of(const Configuration& config, const policy::KbEstimate& kb);

// The steady clock in seconds.
double steady_seconds();

}  // namespace kernelblaster::tuner
