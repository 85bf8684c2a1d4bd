// A Result as one JSON object (`kernelblaster llm ping --json`, run logs).
// Never holds the key: the Result never has it.
#pragma once

#include <string>

#include "llm/types.h"

namespace kernelblaster::llm {

// {"outcome", "detail", "model", "reply", "finish", "usage": {...},
//  "cost_usd", "price_known", "attempts", "waited_s", "latency_s",
//  "http_status", "from_cache", "cache_key"}
std::string result_json(const Result& result, const std::string& provider);

}  // namespace kernelblaster::llm
