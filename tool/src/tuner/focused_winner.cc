#include "tuner/focused_winner.h"

#include <algorithm>
#include <map>

#include "common/text.h"

namespace kernelblaster::tuner {
namespace {

// Each group's fastest verified, accepted evaluation at or above min_speedup.
std::vector<const EvaluationRecord*> group_bests(const std::vector<EvaluationRecord>& evaluations,
                                                 const std::vector<Tunable>& tunables, const LauncherFocus& focus,
                                                 double min_speedup) {
  std::map<std::string, const EvaluationRecord*> best;
  for (const EvaluationRecord& e : evaluations) {
    if (!e.verified() || !e.accepted || e.speedup < min_speedup) continue;
    const std::string g = focus.group(make_configuration(tunables, e.settings, e.flags));
    if (g.empty()) continue;
    if (!best.count(g) || e.speedup > best[g]->speedup) best[g] = &e;
  }
  std::vector<const EvaluationRecord*> out;
  for (const auto& [g, e] : best) out.push_back(e);
  std::stable_sort(out.begin(), out.end(),
                   [](const EvaluationRecord* a, const EvaluationRecord* b) { return a->speedup > b->speedup; });
  return out;
}

}  // namespace

bool has_group_gain(const std::vector<EvaluationRecord>& evaluations, const std::vector<Tunable>& tunables,
                    const LauncherFocus& focus, double min_speedup) {
  return !group_bests(evaluations, tunables, focus, min_speedup).empty();
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
    if (g.kept) out += (out.empty() ? "" : ", ") + g.launchers + " " + speedup_text(g.look.speedup);
  if (whole_checked && whole.verified()) out += "; the whole harness " + speedup_text(whole.speedup);
  return out;
}

FocusedWinner compose_winner(const std::vector<EvaluationRecord>& evaluations, const std::vector<Tunable>& tunables,
                             const LauncherFocus& focus, double min_speedup, const Look& look,
                             const Look& whole_look) {
  FocusedWinner w;
  const std::vector<const EvaluationRecord*> bests = group_bests(evaluations, tunables, focus, min_speedup);
  if (bests.empty()) {
    w.reason = "no group of launch sites gained " + speedup_text(min_speedup) + " or more";
    return w;
  }
  // One set of flags for the source: the fastest group's.
  const std::vector<std::string> flags = bests.front()->flags;
  std::map<std::string, std::string> values;
  for (const EvaluationRecord* e : bests) {
    GroupResult g;
    const Configuration c = make_configuration(tunables, e->settings, flags);
    g.group = focus.group(c);
    g.launchers = focus.names(focus.mask(c));
    g.id = c.id;
    g.search_speedup = e->speedup;
    g.look = look(c);
    g.kept = g.look.keepable() && g.look.speedup >= min_speedup;
    if (g.kept) values.insert(e->settings.begin(), e->settings.end());
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
