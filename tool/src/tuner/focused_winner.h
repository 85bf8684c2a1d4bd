// The winner of a search whose configurations were judged group by group
// (launcher_focus.h). Each group's speedup is its own launchers', so the
// winner is composed: every group's fastest verified configuration at or
// above --min-speedup (the next fastest where it fails its look, below),
// all with one set of flags (the flags of the fastest group's best), each
// looked at again alone with fresh seeds; the groups
// that hold are composed into one configuration, and when that changes more
// than one group or adds flags (which reach every kernel of the source) it
// is checked once more on the whole harness, every launcher running: it
// must verify and must not make the whole slower than kWholeFloor.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "judge/candidate_result.h"
#include "tuner/config_space.h"
#include "tuner/launcher_focus.h"
#include "tuner/run_log.h"

namespace kernelblaster::tuner {

// The whole harness may come out this much slower than the original and
// still pass: the noise of a run dominated by launchers nobody changed.
inline constexpr double kWholeFloor = 0.99;

struct GroupResult {
  std::string group;
  std::string launchers;      // the group's launchers, space-separated
  std::string id;             // the configuration looked at again (the group's best with the composed flags)
  double search_speedup = 0;  // what the search measured for the group's best
  CandidateResult look;       // the fresh look, the group's launchers alone
  bool kept = false;          // verified at or above --min-speedup: part of the winner
  // The faster ones looked at before it that failed their look ("ID (wrong_result)").
  std::vector<std::string> refused;
};

// A group's fastest configuration that fails its fresh look (a size or
// seed the search's measurement did not run: SGEMM_CUDA's kernel 5 with
// BN=256, 1.27x in the search, wrong at 128) gives way to the next fastest
// that does not make the same changes, up to this many looks a group.
inline constexpr std::size_t kLooksPerGroup = 3;

struct FocusedWinner {
  std::vector<GroupResult> groups;  // every group the search found a gain in, fastest first
  bool found = false;               // a composed winner held
  Configuration config;             // it, when found
  bool whole_checked = false;
  CandidateResult whole;            // its look on the whole harness, when checked
  std::string reason;               // why none held, when !found
  // The lowest speedup of a kept group: each changed launcher is at least this much faster.
  double speedup() const;
  // "runSgemm2DBlocktiling 1.06x, runSgemmWarptiling 1.08x; the whole harness 1.00x"
  std::string summary() const;
};

// A configuration's changes to the original: its non-default settings, and
// each flag it adds as a key of its own ("-use_fast_math" to "").
using Settings = std::map<std::string, std::string>;
Settings changes_of(const EvaluationRecord& e);

// Whether `e` makes every change one of `failed` made: it would fail as that did.
bool carries_a_failed_change(const EvaluationRecord& e, const std::vector<Settings>& failed);

// After a failed look, whether of a group's best or of a single winner
// (tuner.cc): the index of the fastest verified, accepted evaluation at or
// above `min_speedup` that carries none of the `failed` looks' changes; -1
// when there is none.
int next_to_look_at(const std::vector<EvaluationRecord>& evaluations, double min_speedup,
                    const std::vector<Settings>& failed);

// Whether the search found a group gain worth composing.
bool has_group_gain(const std::vector<EvaluationRecord>& evaluations, const std::vector<Tunable>& tunables,
                    const LauncherFocus& focus, double min_speedup);

// `look`: a fresh look at a configuration, its group's launchers alone (a
// failed result when any GPU failed it, else the lowest speedup);
// `whole_look`: the same on the whole harness.
using Look = std::function<CandidateResult(const Configuration&)>;

// The configuration compose_winner() checks on the whole harness where
// every group's fastest holds its look, so that its build runs while the
// looks do (each build of SGEMM_CUDA's runner.cu takes about 9 s); nullopt
// where no whole check would follow.
std::optional<Configuration> expected_composition(const std::vector<EvaluationRecord>& evaluations,
                                                  const std::vector<Tunable>& tunables, const LauncherFocus& focus,
                                                  double min_speedup);
FocusedWinner compose_winner(const std::vector<EvaluationRecord>& evaluations, const std::vector<Tunable>& tunables,
                             const LauncherFocus& focus, double min_speedup, const Look& look,
                             const Look& whole_look);

}  // namespace kernelblaster::tuner
