#include "kb/classifier.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kernelblaster::kb {

bool is_known_op(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}

bool holds(const Condition& c, double v) {
  if (std::isnan(v)) return false;
  if (c.op == "<") return v < c.value;
  if (c.op == "<=") return v <= c.value;
  if (c.op == ">") return v > c.value;
  if (c.op == ">=") return v >= c.value;
  if (c.op == "==") return v == c.value;
  if (c.op == "!=") return v != c.value;
  return false;
}

Classification classify(const KnowledgeBase& kb, const std::map<std::string, double>& metrics) {
  struct Match {
    const State* state;
    std::size_t order;
  };
  std::vector<Match> matches;
  std::set<std::string> missing;
  for (std::size_t i = 0; i < kb.states.size(); ++i) {
    const State& s = kb.states[i];
    if (s.rule.empty()) continue;
    bool failed = false;
    std::vector<std::string> absent;
    for (const Condition& c : s.rule) {
      auto it = metrics.find(c.metric);
      if (it == metrics.end() || std::isnan(it->second))
        absent.push_back(c.metric);
      else if (!holds(c, it->second))
        failed = true;
    }
    if (failed) continue;
    if (absent.empty())
      matches.push_back({&s, i});
    else
      missing.insert(absent.begin(), absent.end());
  }
  // Highest priority first; equal priorities keep the KB's order.
  std::stable_sort(matches.begin(), matches.end(),
                   [](const Match& a, const Match& b) { return a.state->priority > b.state->priority; });
  Classification out;
  for (const Match& m : matches) out.matched.push_back(m.state->id);
  out.state = out.matched.empty() ? "unclassified" : out.matched.front();
  out.missing.assign(missing.begin(), missing.end());
  return out;
}

}  // namespace kernelblaster::kb
