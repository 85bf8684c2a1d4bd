#include "tuner/focused_winner.h"

#include <algorithm>
#include <map>

#include "common/text.h"

namespace kernelblaster::tuner {
namespace {

// Each group's verified, accepted evaluations at or above min_speedup,
// fastest first; the groups in the order of their fastest.
std::vector<std::vector<const EvaluationRecord*>> group_candidates(const std::vector<EvaluationRecord>& evaluations,
                                                                   const std::vector<Tunable>& tunables,
                                                                   const LauncherFocus& focus, double min_speedup) {
  std::map<std::string, std::vector<const EvaluationRecord*>> by_group;
  for (const EvaluationRecord& e : evaluations) {
    if (!e.verified() || !e.accepted || e.speedup < min_speedup) continue;
    const std::string g = focus.group(make_configuration(tunables, e.settings, e.flags));
    if (!g.empty()) by_group[g].push_back(&e);
  }
  std::vector<std::vector<const EvaluationRecord*>> out;
  for (auto& [g, list] : by_group) {
    std::stable_sort(list.begin(), list.end(),
                     [](const EvaluationRecord* a, const EvaluationRecord* b) { return a->speedup > b->speedup; });
    out.push_back(list);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a[0]->speedup > b[0]->speedup; });
  return out;
}

}  // namespace

Settings changes_of(const EvaluationRecord& e) {
  Settings out = e.settings;
  for (const std::string& f : e.flags) out[f] = "";
  return out;
}

bool carries_a_failed_change(const EvaluationRecord& e, const std::vector<Settings>& failed) {
  const Settings mine = changes_of(e);
  return std::any_of(failed.begin(), failed.end(), [&](const Settings& f) {
    return std::all_of(f.begin(), f.end(), [&](const auto& kv) {
      auto it = mine.find(kv.first);
      return it != mine.end() && it->second == kv.second;
    });
  });
}

int next_to_look_at(const std::vector<EvaluationRecord>& evaluations, double min_speedup,
                    const std::vector<Settings>& failed) {
  int next = -1;
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const EvaluationRecord& e = evaluations[i];
    if (e.verified() && e.accepted && e.speedup >= min_speedup && !carries_a_failed_change(e, failed) &&
        (next < 0 || e.speedup > evaluations[static_cast<std::size_t>(next)].speedup))
      next = static_cast<int>(i);
  }
  return next;
}

bool has_group_gain(const std::vector<EvaluationRecord>& evaluations, const std::vector<Tunable>& tunables,
                    const LauncherFocus& focus, double min_speedup) {
  return !group_candidates(evaluations, tunables, focus, min_speedup).empty();
}

double FocusedWinner::speedup() const {
  double low = 0;
  for (const GroupResult& g : groups)
    if (g.kept && (low == 0 || g.look.speedup < low)) low = g.look.speedup;
  return low;
}

std::string FocusedWinner::summary() const {
  std::string out;
  for (const GroupResult& g : groups)
    if (g.kept)
      out += (out.empty() ? "" : ", ") + g.launchers + " " + speedup_text(g.look.speedup) +
             (g.refused.empty() ? "" : " (after " + joined(g.refused, ", ") + " failed the look)");
  if (whole_checked && whole.verified()) out += "; the whole harness " + speedup_text(whole.speedup);
  return out;
}

std::optional<Configuration> expected_composition(const std::vector<EvaluationRecord>& evaluations,
                                                  const std::vector<Tunable>& tunables, const LauncherFocus& focus,
                                                  double min_speedup) {
  const std::vector<std::vector<const EvaluationRecord*>> groups =
      group_candidates(evaluations, tunables, focus, min_speedup);
  if (groups.empty()) return std::nullopt;
  const std::vector<std::string> flags = groups.front().front()->flags;
  if (groups.size() < 2 && flags.empty()) return std::nullopt;
  std::map<std::string, std::string> values;
  for (const std::vector<const EvaluationRecord*>& candidates : groups)
    values.insert(candidates.front()->settings.begin(), candidates.front()->settings.end());
  return make_configuration(tunables, values, flags);
}

FocusedWinner compose_winner(const std::vector<EvaluationRecord>& evaluations, const std::vector<Tunable>& tunables,
                             const LauncherFocus& focus, double min_speedup, const Look& look,
                             const Look& whole_look) {
  FocusedWinner w;
  const std::vector<std::vector<const EvaluationRecord*>> groups =
      group_candidates(evaluations, tunables, focus, min_speedup);
  if (groups.empty()) {
    w.reason = "no group of launch sites gained " + speedup_text(min_speedup) + " or more";
    return w;
  }
  // One set of flags for the source: the fastest group's.
  const std::vector<std::string> flags = groups.front().front()->flags;
  std::map<std::string, std::string> values;
  for (const std::vector<const EvaluationRecord*>& candidates : groups) {
    GroupResult g;
    std::vector<Settings> failed;
    for (const EvaluationRecord* e : candidates) {
      if (carries_a_failed_change(*e, failed)) continue;
      const Configuration c = make_configuration(tunables, e->settings, flags);
      if (!g.id.empty()) g.refused.push_back(g.id + " (" + status_name(g.look.status) + ")");
      g.group = focus.group(c);
      g.launchers = focus.names(focus.mask(c));
      g.id = c.id;
      g.search_speedup = e->speedup;
      g.look = look(c);
      g.kept = g.look.keepable() && g.look.speedup >= min_speedup;
      if (g.kept) values.insert(e->settings.begin(), e->settings.end());
      // A look that failed where the search's measurement passed (a size
      // or seed it did not run): the group's next fastest is looked at.
      if (g.kept || g.look.verified() || g.refused.size() + 1 >= kLooksPerGroup) break;
      failed.push_back(changes_of(*e));
    }
    w.groups.push_back(std::move(g));
  }
  const long kept = std::count_if(w.groups.begin(), w.groups.end(), [](const GroupResult& g) { return g.kept; });
  if (kept == 0) {
    const GroupResult& first = w.groups.front();
    w.reason = "no group's gain held with fresh seeds (" + first.launchers + ": " +
               (!first.look.verified()  ? std::string(status_name(first.look.status)) + ": " + first.look.detail
                : first.look.keepable() ? speedup_text(first.look.speedup)
                                        : speedup_text(first.look.speedup) + ", but " + first.look.slower_kernel) +
               ")";
    return w;
  }
  w.config = make_configuration(tunables, values, flags);
  if (kept > 1 || !flags.empty()) {
    w.whole_checked = true;
    w.whole = whole_look(w.config);
    if (!w.whole.verified()) {
      w.reason = "the composed " + w.config.id + " failed on the whole harness: " + status_name(w.whole.status) +
                 (w.whole.detail.empty() ? "" : ": " + w.whole.detail);
      return w;
    }
    if (!w.whole.keepable()) {
      w.reason = "the composed " + w.config.id + " makes a kernel slower on the whole harness: " +
                 w.whole.slower_kernel;
      return w;
    }
    if (w.whole.speedup < kWholeFloor) {
      w.reason = "the composed " + w.config.id + " makes the whole harness slower (" +
                 speedup_text(w.whole.speedup) + ")";
      return w;
    }
  }
  w.found = true;
  return w;
}

}  // namespace kernelblaster::tuner
