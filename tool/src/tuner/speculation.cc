#include "tuner/speculation.h"

#include <algorithm>
#include <map>

namespace kernelblaster::tuner {

std::vector<std::string> speculate_builds(Measurer& measurer, const ConfigSpace& space,
                                          const std::vector<policy::KbEstimate>& estimates,
                                          policy::Policy& guesser, const LoopOptions& options, int count) {
  policy::Context ctx = first_context(space, estimates, options);
  count = std::min(count, ctx.evaluations_left);
  std::vector<std::string> picks;
  if (count <= 0) return picks;
  std::map<std::string, const Configuration*> by_id;
  for (const Configuration& c : space.configs) by_id[c.id] = &c;
  auto take = [&](const std::string& id) {
    if (static_cast<int>(picks.size()) >= count) return;
    if (by_id.count(id) && std::find(picks.begin(), picks.end(), id) == picks.end()) picks.push_back(id);
  };
  try {
    for (const std::string& id : guesser.select(ctx)) take(id);
  } catch (const std::exception&) {
    // A guess, not a choice: the space's order will do.
  }
  for (const Configuration& c : space.configs) take(c.id);
  // Last asked, first built (compile_pool.h): the first guess is asked last.
  for (auto id = picks.rbegin(); id != picks.rend(); ++id) measurer.prepare(*by_id[*id]);
  return picks;
}

int speculative_build_count(int pool_threads) { return std::max(1, pool_threads - 1); }

}  // namespace kernelblaster::tuner
