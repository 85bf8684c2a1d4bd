// Never-throwing reads of provider JSON, shared by the protocol files only.
// nlohmann::json stays inside tool/src/llm/*_protocol.cc and *_json.cc.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kernelblaster::llm {

inline std::string str_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::int64_t int_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

inline const nlohmann::json* obj_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace kernelblaster::llm
