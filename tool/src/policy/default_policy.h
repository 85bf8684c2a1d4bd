// The built-in policy, used without a script and whenever a script fails:
// the paper's weighted random selection over predicted gain (every action
// keeps a chance, so the search keeps exploring), seeded by ctx.seed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace kernelblaster::policy {

std::unique_ptr<Policy> make_default_policy();

// The default policy's pieces, for tools that want the same behaviour:
//   weight(a) = max(0.02, (predicted_speedup - 1) + 0.1 * (1 - confidence))
// so a predicted gain draws the search, an action the KB knows little about
// gets an exploration bonus, and even a predicted loss keeps a small chance.
double selection_weight(const KbEstimate& kb);
// Every action of ctx, in a weighted random order without replacement
// (Efraimidis-Spirakis keys u^(1/w)): the first is drawn with probability
// proportional to its weight, and so on. Deterministic for a given ctx.seed
// and history length; ties are broken by id.
std::vector<std::string> weighted_random_order(const Context& ctx);

}  // namespace kernelblaster::policy
