// Maps a kernel's metrics to a performance state, using the rules stored in
// the KB (data, not code). Deterministic: same metrics, same state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"

namespace kernelblaster::kb {

struct Classification {
  std::string state;                  // id of the winning state; "unclassified" if none matched
  std::vector<std::string> matched;   // every state whose rule held, best first
  std::vector<std::string> missing;   // metrics a rule needed that were absent
};

// Whether `op` is one of the comparison operators a Condition may use.
bool is_known_op(const std::string& op);
// Whether `value` satisfies the condition (a NaN never does).
bool holds(const Condition& c, double value);

// A condition on a metric that is absent (or NaN) never holds. States with an
// empty rule are fallbacks: they never match. `missing` lists, sorted, the
// absent metrics of those rules that no present metric had already ruled
// out, i.e. the metrics whose absence kept a state from being considered.
Classification classify(const KnowledgeBase& kb, const std::map<std::string, double>& metrics);

}  // namespace kernelblaster::kb
