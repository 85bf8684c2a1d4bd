// Migration of older KB layouts to the current schema (internal to the kb
// area: nlohmann::json stays inside the files that read and write KBs).
//
// Version 0 (files without "schema_version", or with 0) kept statistics as
// nested objects keyed by state, technique and architecture, with the sample
// variance instead of Welford's m2, and no settings:
//   "stats": {"<state>": {"<technique>": {"<arch>":
//       {"tries": 4, "successes": 2, "measured": 3, "mean": 1.2, "variance": 0.01, "notes": []}}}}
//   "transitions": {"<from>": {"<to>": {"<arch>": {...same fields...}}}}
// "measured" was optional in version 0 (speedups were then recorded for
// successes only, so it defaults to "successes"). States and techniques are
// unchanged. Version 1 keeps both as flat arrays of objects (kb_parse.cc).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kernelblaster::kb::detail {

// Where an entry of the migrated document came from, so that an error found
// later can name the key of the file the user actually has.
struct MovedEntry {
  std::string new_pointer;  // "/stats/3"
  std::string old_pointer;  // "/stats/memory_bandwidth_bound/fast_math/sm_90"
};

// Rewrites `doc` (of schema `from_version`) into the current layout. Throws
// KbError naming the old layout's key when the old document is malformed.
nlohmann::json migrate(nlohmann::json doc, int from_version, const std::string& file, std::vector<MovedEntry>& moved);

// Escapes one JSON-pointer reference token (RFC 6901: ~ -> ~0, / -> ~1).
std::string pointer_token(const std::string& key);

}  // namespace kernelblaster::kb::detail
