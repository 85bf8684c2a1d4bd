// A search that spans builds (DESIGN.md): what the tuning of one source
// (one content key) on one GPU has measured so far, kept in a directory of
// the results cache (`tune --state-dir`, which the build step gives), so
// the next build resumes the search instead of starting over:
//
//   <dir>/search.json   this state
//   <dir>/builds/       the original's harness objects and programs
//                       (judge/candidate_build.h, BuildStore)
//
// Every configuration measured stays measured: the next run's loop takes
// the evaluations as its history (the policy's model is a function of
// them), measures none of them again, and pays no build or profile of the
// original that an earlier run made. The winner's look after the loop is
// kept with what it looked at, so a run that found nothing better reuses
// its verdict instead of looking again. A search is over when its policy
// stops every part (converged), the space is exhausted, the original
// cannot be judged, or kMaxBuildsSearched runs have searched it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/config_space.h"
#include "tuner/run_log.h"

namespace kernelblaster::tuner {

// Runs a search may span before it ends, converged or not: a policy that
// never stops costs at most this many builds' budgets.
constexpr int kMaxBuildsSearched = 20;

// What a look after the loop concluded (the TuneSummary fields it sets), and
// the source it wrote: reused while the search finds nothing it would look at.
struct LookVerdict {
  int exit_code = 1;
  std::string status;  // tune_verdict_name
  std::string reason;
  double speedup = 0, search_speedup = 0, whole_speedup = 0;
  double reference_median_us = 0, best_median_us = 0;
  std::map<std::string, std::string> config;
  std::vector<std::string> flags;
  std::map<std::string, double> kernel_speedups;
  std::string memcheck, slower_at_a_size, other_sizes, launch_paced, shape_guard, edge_check, per_launcher;
  std::string text;  // the tuned source written (exit_code 0)
};

struct SearchState {
  std::string space;   // space_digest() of the space and harness measured in
  int builds = 0;      // tuning runs that searched it
  double seconds = 0;  // their wall time together
  double pace_s = 0;   // a measurement's own seconds in the last run that measured (0: none)
  std::string state = "unclassified";     // the original's, classified
  std::map<std::string, double> metrics;  // its profile; empty: not profiled yet
  std::vector<EvaluationRecord> evaluations;  // every run's, in order
  std::string stop;        // why the last run's search stopped (search_stop_name)
  bool over = false;       // no run need search it again
  std::string look_of;     // look_signature() of the evaluations the last look concluded on ("" none)
  LookVerdict look;
};

// The state kept in `dir`, or nothing: none yet, or one that cannot be read
// (`why` says which and why; the search then starts afresh).
std::optional<SearchState> read_search_state(const std::string& dir, std::string* why);
// Written atomically; throws std::runtime_error when it cannot be.
void write_search_state(const std::string& dir, const SearchState& s);

// What makes two runs' measurements comparable: the space's configurations
// and the harness they were measured with.
std::string space_digest(const ConfigSpace& space, const std::string& harness_text);

// The evaluations a look after the loop concludes on: the accepted ones at
// or above `min_speedup` (each part's successive bests), as their ids. A
// run that adds none has nothing new to look at.
std::string look_signature(const std::vector<EvaluationRecord>& evaluations, double min_speedup);

}  // namespace kernelblaster::tuner
