// What the tuner asks of the KB and tells it: warm-start estimates for each
// configuration, and one outcome per non-default setting after a run.
#pragma once

#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "policy/policy.h"
#include "search/config_space.h"
#include "search/run_log.h"

namespace kernelblaster::search {

// The KB's view of `config` for (state, arch). Each non-default setting is
// looked up as (state, technique, arch, setting key); a setting the state
// has no statistics for uses the statistics pooled over every state with
// half the confidence. Combined over the settings: tries and successes add;
// mean and predicted speedups are geometric means (a setting's statistics
// are speedups of whole configurations that contained it, so a product would
// count shared effects once per setting); confidence is the mean, a setting
// without statistics counting 0. The original (no settings) gets the neutral
// estimate.
policy::KbEstimate estimate(const kb::KnowledgeBase& kb, const std::string& state, const std::string& arch,
                            const Configuration& config);

// One outcome per non-default setting of every evaluation that says
// something about its configuration (a reference failure or a missing GPU
// says nothing and is skipped). Speedups are over the original.
std::vector<kb::Outcome> outcomes_of(const RunLog& log);

}  // namespace kernelblaster::search
