// What tokens cost: a table of models, US dollars per million tokens, read
// from data/llm/prices.json or the user's file (KERNELBLASTER_LLM_PRICES).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "llm/types.h"

namespace kernelblaster::llm {

struct Price {
  double input = 0;         // per million prompt tokens
  double cached_input = 0;  // per million prompt tokens read from the provider's cache
  double cache_write = 0;   // per million prompt tokens written to it
  double output = 0;        // per million output tokens
};

class PriceTable {
 public:
  // Throws std::runtime_error naming the file and the entry on a bad file.
  static PriceTable load(const std::string& path);
  static PriceTable parse(const std::string& text, const std::string& origin);
  // The exact model, else the longest entry the model name starts with
  // ("gpt-4o-2024-08-06" takes "gpt-4o"; "gpt-4o-mini-x" takes "gpt-4o-mini").
  std::optional<Price> find(const std::string& model) const;
  void set(const std::string& model, const Price& price) { m_prices[model] = price; }

 private:
  std::map<std::string, Price> m_prices;
};

double cost_usd(const Price& price, const Usage& usage);

// KERNELBLASTER_LLM_PRICES, else <prefix>/share/kernelblaster/llm/prices.json
// next to an installed tool, else the source tree's data/llm/prices.json.
std::string default_prices_path(const std::string& self_exe);

}  // namespace kernelblaster::llm
