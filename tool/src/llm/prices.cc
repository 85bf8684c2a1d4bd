#include "llm/prices.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/file_util.h"

#ifndef KERNELBLASTER_LLM_SOURCE_PRICES
#define KERNELBLASTER_LLM_SOURCE_PRICES ""
#endif

namespace kernelblaster::llm {

using nlohmann::json;

PriceTable PriceTable::load(const std::string& path) { return parse(read_file(path), path); }

PriceTable PriceTable::parse(const std::string& text, const std::string& origin) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("models") || !j["models"].is_object())
    throw std::runtime_error(origin + ": not a price table (an object with \"models\")");
  PriceTable table;
  for (const auto& item : j["models"].items()) {
    // Plain references, not structured bindings: clang 14 cannot capture those in the lambda below.
    const std::string& model = item.key();
    const json& entry = item.value();
    if (!model.empty() && model[0] == '_') continue;  // comments
    if (!entry.is_object()) throw std::runtime_error(origin + ": /models/" + model + ": not an object");
    Price p;
    auto number = [&](const char* key, double fallback) {
      if (!entry.contains(key)) return fallback;
      const json& v = entry[key];
      if (!v.is_number() || v.get<double>() < 0)
        throw std::runtime_error(origin + ": /models/" + model + "/" + key + ": not a non-negative number");
      return v.get<double>();
    };
    p.input = number("input", -1);
    p.output = number("output", -1);
    if (p.input < 0 || p.output < 0) throw std::runtime_error(origin + ": /models/" + model + ": needs input and output");
    p.cached_input = number("cached_input", p.input);
    p.cache_write = number("cache_write", p.input);
    table.m_prices[model] = p;
  }
  return table;
}

std::optional<Price> PriceTable::find(const std::string& model) const {
  if (auto it = m_prices.find(model); it != m_prices.end()) return it->second;
  const std::pair<const std::string, Price>* best = nullptr;
  for (const auto& entry : m_prices)
    if (model.rfind(entry.first, 0) == 0 && (!best || entry.first.size() > best->first.size())) best = &entry;
  if (best) return best->second;
  return std::nullopt;
}

double cost_usd(const Price& price, const Usage& usage) {
  std::int64_t plain = std::max<std::int64_t>(0, usage.input - usage.cached_input - usage.cache_write);
  return (plain * price.input + usage.cached_input * price.cached_input + usage.cache_write * price.cache_write +
          usage.output * price.output) / 1e6;
}

std::string default_prices_path(const std::string& self_exe) {
  if (const char* env = std::getenv("KERNELBLASTER_LLM_PRICES"); env && *env) return env;
  if (!self_exe.empty()) {
    auto installed = std::filesystem::path(self_exe).parent_path().parent_path() / "share/kernelblaster/llm/prices.json";
    if (std::filesystem::exists(installed)) return installed.string();
  }
  return KERNELBLASTER_LLM_SOURCE_PRICES;
}

}  // namespace kernelblaster::llm
