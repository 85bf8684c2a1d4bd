// The built-in policy, used without a script and whenever a script fails:
// the paper's weighted random selection over predicted gain (every action
// keeps a chance, so the search keeps exploring), seeded by ctx.seed.
#pragma once

#include <memory>

#include "policy/policy.h"

namespace kernelblaster::policy {

std::unique_ptr<Policy> make_default_policy();

}  // namespace kernelblaster::policy
