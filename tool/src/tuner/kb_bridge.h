// What the tuner asks of the KB and tells it: warm-start estimates for each
// configuration, and one outcome per non-default setting after a run.
#pragma once

#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "policy/policy.h"
#include "tuner/config_space.h"
#include "tuner/run_log.h"

namespace kernelblaster::tuner {

// How much an observation made in another state counts, against one made in
// the kernel's own state.
inline constexpr double kOtherStateWeight = 0.5;

// How far a setting's predicted effect moves towards none, in standard
// errors of the mean of its measured speedups.
inline constexpr double kNoiseStandardErrors = 2.0;

// The KB's view of `config` for (state, arch). A setting's statistics are its
// own effect (the speedup of adding it to a configuration, see outcomes_of),
// so for each non-default setting the observations of (state, technique,
// arch, setting key) and, at kOtherStateWeight each, those of the same key in
// every other state are pooled with the KB's prior (kb::kPriorWeight
// pseudo-tries at 1.0) into a predicted effect and a confidence
// (weighted tries / (weighted tries + kb::kConfidenceWeight)); the effect is
// then moved towards 1.0 by kNoiseStandardErrors standard errors of the mean
// of the key's measured speedups (an effect within the noise is none, so a
// KB that saw a setting neutral treats it as one it never saw). Combined over
// the settings: effects multiply (they add in log space, the model the
// outcomes were fitted with); tries and successes add; confidence is the
// mean, a setting without statistics counting 0. The original (no settings)
// gets the neutral estimate.
policy::KbEstimate estimate(const kb::KnowledgeBase& kb, const std::string& state, const std::string& arch,
                            const Configuration& config);

// One outcome per non-default setting of every evaluation that says
// something about its configuration (a reference failure, a missing GPU, a
// harness error or a configuration a recording lacks says nothing and is
// skipped). A verified evaluation's outcome for setting k is the speedup of
// the configuration over the same configuration without k, as estimated by
// the run's fit (setting_effects.h): exp(effect(k) + the configuration's
// residual), so an outcome is the setting's own effect, noise included. A
// failed evaluation is a failed try of each of its settings, except a
// setting whose removal this run also measured as a failure (it did not
// cause it).
std::vector<kb::Outcome> outcomes_of(const RunLog& log);

}  // namespace kernelblaster::tuner
