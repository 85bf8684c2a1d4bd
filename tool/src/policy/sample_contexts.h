// Built-in contexts that `kernelblaster policy check` (and the tests) run a
// policy on: a memory-bound kernel with block-size/coarsening actions, a
// compute-bound one with compiler-flag actions, a run with history, and the
// end of a search (no actions left).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace kernelblaster::policy {

struct SampleContext {
  std::string name;
  Context ctx;
};

std::vector<SampleContext> sample_contexts(std::uint64_t seed);

// A plausible measured result for `action_id` of `ctx` (or of its last
// history entry when the id is empty), to call accept() with.
HistoryEntry sample_result(const Context& ctx, const std::string& action_id);

}  // namespace kernelblaster::policy
