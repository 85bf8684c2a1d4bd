// One table per enum for the names it has at the edges (JSON, Lua, the
// command line), read both ways: a value's name, and the value a name spells.
// Inside the tool the enum is used; only the edges call these.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace kernelblaster {

template <class E>
using EnumName = std::pair<E, const char*>;

// `value`'s name in `table`, or `unknown` for a value the table lacks.
template <class E, std::size_t N>
constexpr const char* name_in(const EnumName<E> (&table)[N], E value, const char* unknown) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return unknown;
}

// The value `name` spells in `table`, or nothing.
template <class E, std::size_t N>
constexpr std::optional<E> value_in(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& [v, n] : table)
    if (name == n) return v;
  return std::nullopt;
}

}  // namespace kernelblaster
