// Builds started before the search may ask its policy anything. The policy's
// first picks depend on the original's state, known only after the reference
// is built and profiled (seconds of GPU time during which the CPU pool would
// idle). So a fresh instance of the run's policy is asked, under the context
// the search will show it minus what is not known yet, for the
// configurations it would take first, and those start compiling into the
// run's build cache. The search's own policy is never asked early (a policy
// may keep state between calls, and its choices must be the ones a replay
// reproduces); a guess it does not follow costs only CPU time, and a guess
// it does follow is never compiled again.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.h"
#include "tuner/config_space.h"
#include "tuner/measurer.h"
#include "tuner/search_loop.h"

namespace kernelblaster::tuner {

// The first `count` configurations `guesser` (a policy instance the run
// never uses again) picks under first_contexts(space, estimates, options),
// the parts' first picks in turn as the loop takes them, then their
// second ones, and so on; completed in the space's order when it names
// fewer, each prepared on
// `measurer`. At most what the run can reach (the evaluation cap). Returns
// their ids in the order prepared. A policy that throws leaves the space's
// order. A resumed search (options.earlier) guesses only its first picks
// that no earlier run measured.
std::vector<std::string> speculate_builds(Measurer& measurer, const ConfigSpace& space,
                                          const std::vector<policy::KbEstimate>& estimates,
                                          policy::Policy& guesser, const LoopOptions& options, int count);

// How many builds to start on a guess with a pool of `pool_threads`: one
// fewer than the pool, so every guess starts at once (none waits in the
// queue ahead of what the search asks for later) and a core is left for the
// reference build that runs beside them.
int speculative_build_count(int pool_threads);

}  // namespace kernelblaster::tuner
