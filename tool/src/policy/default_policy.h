// The built-in policy, used without a script and whenever a script fails.
// It starts with the paper's weighted random selection over the KB's
// predicted gain (every action keeps a chance, so the search keeps
// exploring), seeded by ctx.seed; once the run has measured enough, a model
// of its own measurements leads (guided_search.h), with a share of picks
// still left to the weighted draw.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace kernelblaster::policy {

std::unique_ptr<Policy> make_default_policy();

// The default policy's stopping rule, where a search has an original (the
// tuner's; an optimize loop's techniques never converge by it): a part of
// the search has converged once its best has not risen by more than
// kConvergedGain over the last max(kConvergedTries, the tries before its
// last rise) tries: as many tries again as it took to find its best, at
// least kConvergedTries. A search may span builds (tuner/search_state.h),
// so the tries are counted over its whole history, not one build's.
constexpr int kConvergedTries = 50;
constexpr double kConvergedGain = 0.005;
bool converged(const Context& ctx);

// The default policy's pieces, for tools that want the same behaviour:
//   weight(a) = max(0.02, ((predicted_speedup / best - 1) + 0.1) * reliability)
//   reliability = (tries - failed + 1) / (tries + 1)
// where best is the best speedup of this run so far (1.0: the original).
// The gain that matters is over the configuration the search would
// otherwise keep, as in the paper, where a technique's predicted speedup is
// over the kernel it is applied to; the tuner's predictions are over the
// original, so they are divided by the best. A predicted gain draws the
// search, a predicted loss pushes an action back (down to a small chance it
// always keeps), and an action predicted neutral weighs 0.1 whether the KB
// has never seen it or has seen it neutral many times: the KB's statistics
// come from other kernels, a setting neutral there may pay off here, so a
// known-neutral action must not rank below an unknown one, nor sink to the
// floor with the known-harmful ones. How much evidence the KB has is
// already in predicted_speedup, which kb::refresh_prediction shrinks towards
// 1.0 when tries are few; the confidence is not used. A failed try (no
// verified measurement: it did not build, it was wrong, it was a hack)
// counts as 1.0 in the prediction, since the base is kept, so the failures
// are what `reliability` weighs: two failures in two tries divide the
// weight by 3, a technique never tried or always measured keeps it.
double selection_weight(const KbEstimate& kb, double best_speedup = 1.0);
// Within a run, an action whose tunable values (its settings without
// "flags") were already measured weighs a quarter: its flag variants come
// after the tunable combinations not yet seen. A launch configuration or a
// code path is what moves a kernel most; flags move it less (the recorded
// examples, bench/policy_replay), so a short search covers the first before
// the second.
// Every action of ctx, in a weighted random order without replacement
// (Efraimidis-Spirakis keys u^(1/w)): the first is drawn with probability
// proportional to its weight, and so on. Each action's draw depends only on
// ctx.seed and its id, so within a run the order changes only where the
// weights change; ties are broken by id.
std::vector<std::string> weighted_random_order(const Context& ctx);

}  // namespace kernelblaster::policy
