// The content key of a tuning result: everything that can change what the
// tuner would find or what the result means. Equal keys mean the cached
// result is still the one that was measured.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/include_scan.h"  // scan_includes, which the key covers

namespace kernelblaster::build_step {

struct KeyInputs {
  std::string tool_version;
  std::string kb_version;     // seed KB content hash and KB schema
  std::string policy_hash;    // of the Lua policy file; empty: the built-in policy
  std::string nvcc_version;   // `nvcc --version` output
  std::string arch;           // "sm_90"
  std::string source_text;
  std::vector<std::string> header_texts;  // every header the source includes, transitively
  std::vector<std::string> definitions;   // in order
  std::vector<std::string> flags;         // in order
  // The LLM that rewrites the kernel before tuning ("provider/model"); empty
  // without one, and then the key is what it was before rewriting existed.
  std::string rewriter;
  // What a synthesized harness leaves unrun ("" when it runs every kernel):
  // a later recording that covers more keys a new tuning.
  std::string unharnessed;
};

// Hex SHA-256. Headers count by content, not by path, so the same project
// checked out elsewhere (a CI machine) has the same key; include directories
// themselves are left out for the same reason.
std::string content_key(const KeyInputs& in);

// The key's parts by name, each as a short text a person can compare: the
// tool, nvcc and the architecture as they are, the definitions and flags
// joined (what CMAKE_BUILD_TYPE changes), the source, its headers, the KB
// and the policy by a digest. A result keeps them, so a build whose key
// matches none can say which parts differ from the nearest (key_difference).
std::map<std::string, std::string> key_parts(const KeyInputs& in);

// "flags (-O3 -DNDEBUG, was -O2 -g), nvcc": the parts of `now` that differ
// from `then`, named; "" when none differ or `then` holds none (a result
// older than key parts). Values are shown where short.
std::string key_difference(const std::map<std::string, std::string>& now,
                           const std::map<std::string, std::string>& then);

// How many parts of `then` equal `now`'s (the nearest entry has most).
int parts_in_common(const std::map<std::string, std::string>& now, const std::map<std::string, std::string>& then);

// A depfile (Makefile syntax) saying `target` depends on `deps`.
std::string make_depfile(const std::string& target, const std::vector<std::string>& deps);

}  // namespace kernelblaster::build_step
