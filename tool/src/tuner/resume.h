// A tuning run's side of a search that spans builds (search_state.h): what
// it takes from the earlier runs' state (their evaluations, the original's
// profile, the last look's verdict) and what it leaves for the next run.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tuner/search_loop.h"
#include "tuner/search_state.h"
#include "tuner/tuner.h"

namespace kernelblaster::tuner {

struct Resumed {
  std::string dir;                   // TuneOptions::state_dir ("" keeps nothing)
  std::string space;                 // space_digest() of this run
  std::optional<SearchState> state;  // the earlier runs', where they measured this space
  std::string note;                  // why an earlier state was not resumed ("" when none was there)
  bool look_reused = false;          // this run took the earlier look's verdict (reuse_look)
  std::string builds_dir() const;    // where the original's builds are kept ("" none)
};

// The state in `opt.state_dir` for this space (`space` digest), unless
// opt.fresh_search or it measured another space; a state that cannot be
// read is noted and started afresh.
Resumed resume_search(const TuneOptions& opt, const std::string& space);

// The earlier runs' best accepted speedup, where their last look concluded
// on what the earlier evaluations hold (so a run that finds nothing better
// needs no look): the speedup a new winner must pass for the loop to keep
// time for a look; 0 when a look is due anyway.
double looked_up_to(const Resumed& r, double min_speedup);

// What a resumed search's best must gain over the best the earlier look
// concluded on, in its part, to be looked at again. A look is a build's
// dearest part (SGEMM_CUDA's: 107 s of a 150-s build whose budget is 60 s,
// an H100, 2026-12-07), and a gain under 1% is within what a screen's
// timing can tell.
constexpr double kLookMargin = 0.01;

// The part an evaluation belongs to: the launcher groups its changes reach
// (LauncherFocus::mask), 0 for all where the search is one.
using PartOf = std::function<std::uint64_t(const EvaluationRecord&)>;

// Whether the earlier look stands for `evaluations`: it tuned, was taken
// under this min_speedup, and every accepted evaluation at or above
// min_speedup that it did not look at gains less than kLookMargin over the
// fastest it did look at in the same part (a part it did not look at: any
// such evaluation is due). An earlier look that did not tune stands only
// for the very evaluations it concluded on.
bool look_stands(const Resumed& r, const std::vector<EvaluationRecord>& evaluations, double min_speedup,
                 const PartOf& part_of);

// The earlier look's verdict into `sum` (and its source into opt.out) where
// it stands (look_stands); false when a look is due. A reused look is what
// the state keeps as the last look (Resumed::look_reused).
bool reuse_look(Resumed& r, const LoopOutcome& outcome, const TuneOptions& opt, const PartOf& part_of,
                TuneSummary& sum);

// The search's state after this run: every evaluation, the original's
// profile, the verdict of this run's look, whether the search is over
// (sum.continues, sum.builds_searched). Best effort: a state that cannot
// be written is said, and the next run starts afresh.
void remember_search(Resumed& r, const LoopOutcome& outcome, const RunLog& log, const TuneOptions& opt,
                     double seconds, TuneSummary& sum, const std::function<void(const std::string&)>& say);

}  // namespace kernelblaster::tuner
