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

// A condition on a metric that is absent never holds.
Classification classify(const KnowledgeBase& kb, const std::map<std::string, double>& metrics);

}  // namespace kernelblaster::kb
