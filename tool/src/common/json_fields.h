// Reading a JSON object into a struct's fields, key by key.
#pragma once

#include <utility>

#include <nlohmann/json.hpp>

namespace kernelblaster {

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
