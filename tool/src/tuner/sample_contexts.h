// Built-in contexts that `kernelblaster policy check` (and the policy tests)
// run a policy on: a memory-bound kernel with block-size/coarsening actions,
// a compute-bound one with compiler-flag actions, a run with history, and
// the end of a search (no actions left). They are built the way the tuner
// builds its own (directives, enumerate_space, first_context): every action
// carries every tunable, defaults included, and the techniques of what it
// changes, "+"-joined, so a policy that works here works in a real run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace kernelblaster::tuner {

struct SampleContext {
  std::string name;
  policy::Context ctx;
};

std::vector<SampleContext> sample_contexts(std::uint64_t seed);

// A plausible measured result for `action_id` of `ctx` (or of its last
// history entry when the id is empty), to call accept() with.
policy::HistoryEntry sample_result(const policy::Context& ctx, const std::string& action_id);

}  // namespace kernelblaster::tuner
