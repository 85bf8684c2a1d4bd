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

// The earlier look's verdict into `sum` (and its source into opt.out) where
// this run found nothing it would look at again; false when a look is due.
bool reuse_look(const Resumed& r, const LoopOutcome& outcome, const TuneOptions& opt, TuneSummary& sum);

// The search's state after this run: every evaluation, the original's
// profile, the verdict of this run's look, whether the search is over
// (sum.continues, sum.builds_searched). Best effort: a state that cannot
// be written is said, and the next run starts afresh.
void remember_search(Resumed& r, const LoopOutcome& outcome, const RunLog& log, const TuneOptions& opt,
                     double seconds, TuneSummary& sum, const std::function<void(const std::string&)>& say);

}  // namespace kernelblaster::tuner
