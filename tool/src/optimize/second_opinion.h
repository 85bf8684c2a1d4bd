// The LLM's second opinion on a kept kernel (optional, --second-opinion):
// the model reads the original and the winner and says whether they compute
// the same thing for every input the launcher accepts. It is advice for the
// person reading the report, never a verdict: only the engine decides what
// is kept, and a "different" opinion is shown as a warning beside it.
#pragma once

#include <string>

#include "llm/types.h"

namespace kernelblaster::optimize {

enum class Opinion { same, different, unreadable, not_asked, failed };
const char* opinion_name(Opinion opinion);

struct SecondOpinion {
  Opinion opinion = Opinion::not_asked;
  std::string reason;  // one line: the model's reason, or why there is none
};

llm::Request second_opinion_request(const std::string& original, const std::string& candidate,
                                    const std::string& launcher);

// The opinion in a reply: its last line beginning "VERDICT:" followed by
// "same" or "different"; anything else is unreadable.
SecondOpinion read_second_opinion(const std::string& reply);

}  // namespace kernelblaster::optimize
