// Reading a JSON object into a struct's fields, key by key.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace kernelblaster {

// "not valid JSON: parse error at line 1, column 3: ...": nlohmann's parse
// message without its "[json.exception.parse_error.101] " tag, for a
// one-line error a person reads.
inline std::string json_parse_reason(const std::string& what) {
  std::string s = what;
  if (s.rfind("[json.exception.", 0) == 0 && s.find("] ") != std::string::npos) s = s.substr(s.find("] ") + 2);
  return "not valid JSON: " + s;
}

inline void read_fields(const nlohmann::json&) {}

// read_fields(j, "key", field, "other", other, ...): each key present in `j`
// is read into its field; a missing key leaves the field as it is (its
// default). A key of the wrong type throws nlohmann::json::type_error.
template <class T, class... Rest>
void read_fields(const nlohmann::json& j, const char* key, T& field, Rest&&... rest) {
  field = j.value(key, field);
  read_fields(j, std::forward<Rest>(rest)...);
}

}  // namespace kernelblaster
