#include "policy/default_policy.h"

#include "policy/draws.h"
#include "policy/guided_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace kernelblaster::policy {
namespace {

constexpr double kWeightFloor = 0.02;
constexpr double kExplorationBonus = 0.1;
constexpr double kTriedTunablesFactor = 0.25;

// An action's draw in (0, 1]: a function of the run's seed and the action's
// id only, so an action keeps its draw from call to call and the order
// changes only where the weights do (a new best). The builds the loop
// started for the next picks are then the picks it takes next.
double action_draw(std::uint64_t seed, const std::string& id) {
  std::uint64_t state = draw_state(seed, id);
  return unit_draw(state);
}

// An action's tunable values without its flags: what a launch configuration
// or a code path depends on; flag variants share it.
std::map<std::string, std::string> tunables_of(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> t = settings;
  t.erase("flags");
  return t;
}

class DefaultPolicy final : public Policy {
 public:
  std::string name() const override { return "default"; }

  // The model of this run's measurements leads once there are enough of
  // them; the weighted draw (the KB's prior) before, and on exploring turns.
  std::vector<std::string> select(const Context& ctx) override {
    std::vector<std::string> guided = m_guided.next(ctx);
    return guided.empty() ? weighted_random_order(ctx) : guided;
  }

  // A verified result that beats the best so far becomes the base.
  std::optional<bool> accept(const Context& ctx, const HistoryEntry& result) override {
    return result.verified() && result.speedup > ctx.best_speedup;
  }

  // Nothing left to try ends the search, and so does convergence;
  // otherwise the budget decides.
  std::optional<bool> stop(const Context& ctx) override {
    if (ctx.actions.empty() || converged(ctx)) return true;
    return std::nullopt;
  }

 private:
  GuidedSearch m_guided;
};

}  // namespace

double selection_weight(const KbEstimate& kb, double best_speedup) {
  double best = std::isfinite(best_speedup) && best_speedup > 0 ? best_speedup : 1.0;
  // An action of techniques the KB lists for the state, not yet measured,
  // explores with a larger bonus: the cold start's order.
  double w = (kb.predicted_speedup / best - 1.0) + kExplorationBonus * (1.0 + std::max(0, kb.helps_state));
  // Laplace's rule of succession over the tries: the share of them that
  // could be measured at all, (tries - failed + 1) / (tries + 1).
  double tries = static_cast<double>(std::max<std::int64_t>(0, kb.tries));
  double verified = std::clamp(tries - static_cast<double>(kb.failed), 0.0, tries);
  if (w > 0) w *= (verified + 1.0) / (tries + 1.0);
  return std::isfinite(w) ? std::max(kWeightFloor, w) : kWeightFloor;
}

std::vector<std::string> weighted_random_order(const Context& ctx) {
  struct Keyed {
    double key;
    const std::string* id;
  };
  std::set<std::map<std::string, std::string>> tried;
  std::map<std::string, std::string> best_tunables;
  double best = 1.0;
  for (const HistoryEntry& h : ctx.history) {
    tried.insert(tunables_of(h.settings));
    if (h.verified() && h.speedup > best) best = h.speedup, best_tunables = tunables_of(h.settings);
  }
  if (best > 1.0) tried.erase(best_tunables);
  std::vector<Keyed> keyed;
  keyed.reserve(ctx.actions.size());
  for (const Action& a : ctx.actions) {
    double w = selection_weight(a.kb, ctx.best_speedup);
    if (tried.count(tunables_of(a.settings))) w *= kTriedTunablesFactor;
    keyed.push_back({std::log(action_draw(ctx.seed, a.id)) / w, &a.id});
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return a.key != b.key ? a.key > b.key : *a.id < *b.id;
  });
  std::vector<std::string> ids;
  ids.reserve(keyed.size());
  for (const Keyed& k : keyed) ids.push_back(*k.id);
  return ids;
}

bool converged(const Context& ctx) {
  if (ctx.original.empty()) return false;
  double best = 1.0;
  std::size_t rose_at = 0;  // tries up to and including the last rise
  for (std::size_t i = 0; i < ctx.history.size(); ++i) {
    const HistoryEntry& h = ctx.history[i];
    if (!h.accepted || !h.verified()) continue;
    if (h.worth() > best * (1 + kConvergedGain)) rose_at = i + 1;
    best = std::max(best, h.worth());
  }
  const std::size_t since = ctx.history.size() - rose_at;
  return since >= std::max<std::size_t>(kConvergedTries, rose_at);
}

std::unique_ptr<Policy> make_default_policy() { return std::make_unique<DefaultPolicy>(); }

}  // namespace kernelblaster::policy
