#include "tuner/speculation.h"

#include <algorithm>
#include <map>

namespace kernelblaster::tuner {

std::vector<std::string> speculate_builds(Measurer& measurer, const ConfigSpace& space,
                                          const std::vector<policy::KbEstimate>& estimates,
                                          policy::Policy& guesser, const LoopOptions& options, int count) {
  const std::vector<policy::Context> contexts = first_contexts(space, estimates, options);
  // Each part's share is rounded up: never past the evaluation cap.
  int left = 0;
  for (const policy::Context& ctx : contexts) left += ctx.evaluations_left;
  count = std::min({count, left, reachable(space, options)});
  std::vector<std::string> picks;
  if (count <= 0) return picks;
  std::map<std::string, const Configuration*> by_id;
  for (const Configuration& c : space.configs) by_id[c.id] = &c;
  for (const EvaluationRecord& e : options.earlier) by_id.erase(e.id);  // measured by an earlier run
  auto take = [&](const std::string& id) {
    if (static_cast<int>(picks.size()) >= count) return;
    if (by_id.count(id) && std::find(picks.begin(), picks.end(), id) == picks.end()) picks.push_back(id);
  };
  // The loop picks for each part in turn (search_loop.cc): the guesses too.
  for (const std::string& id : options.first_picks) take(id);  // measured first: built first
  // A resumed search's policy picks from its history, which these contexts
  // lack: its first picks come from the loop, prepared as it starts.
  if (!options.earlier.empty()) count = static_cast<int>(picks.size());
  std::vector<std::vector<std::string>> guesses;
  std::size_t longest = 0;
  for (const policy::Context& ctx : contexts) {
    try {
      guesses.push_back(guesser.select(ctx));
    } catch (const std::exception&) {
      guesses.emplace_back();  // a guess, not a choice: the space's order will do
    }
    longest = std::max(longest, guesses.back().size());
  }
  for (std::size_t k = 0; k < longest; ++k)
    for (const std::vector<std::string>& g : guesses)
      if (k < g.size()) take(g[k]);
  for (const Configuration& c : space.configs) take(c.id);
  // Last asked, first built (compile_pool.h): the first guess is asked last.
  for (auto id = picks.rbegin(); id != picks.rend(); ++id) measurer.prepare(*by_id[*id]);
  return picks;
}

int speculative_build_count(int pool_threads) { return std::max(1, pool_threads - 1); }

}  // namespace kernelblaster::tuner
