// A target's manifest: its compile settings, and for hand-written ones the
// tunables and constraints it adds to the search space.
//
// Two forms. kernelblaster_optimize() writes the line form at generate time,
// because CMake can join a list with a separator but cannot escape it for
// JSON: every value is written as the build has it, one per line,
//
//   kernelblaster-manifest 1
//   target <name>
//   arch <sm_90>
//   I <include directory>
//   D <NAME or NAME=VALUE>
//   F <nvcc flag>       ("F SHELL:a b" is split at spaces, as CMake does)
//   L <setting> <value> (an LLM setting from the KERNELBLASTER_LLM_* cache
//                        variables, by its flag name: "L model gpt-5")
//   project <dir>       (the build's source tree: headers under it are the
//                        project's, for a rewrite of one kernel)
//
// so quotes, backslashes, spaces, ';', '$' and non-ASCII text pass through
// untouched. Lines with an empty value are skipped. Users write the JSON
// form: {"arch", "include_dirs", "definitions", "flags", "tunables",
// "constraints", "project", "llm": {"model": "..."}}. The LLM key is never in a
// manifest: it is read from the environment at run time.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "judge/candidate_build.h"

namespace kernelblaster {

inline constexpr const char* kManifestHeader = "kernelblaster-manifest 1";

struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Manifest {
  std::string target;
  std::string project;  // the project's own tree; empty when not given
  CompileSettings settings;
  nlohmann::json space;  // the JSON form's object (tunables, constraints); null for the line form
  // LLM settings by flag name ("model", "max-tokens"), in the file's order;
  // checked where they are applied (llm::apply_setting).
  std::vector<std::pair<std::string, std::string>> llm;
};

// Reads either form; throws ManifestError "manifest PATH: reason" (one line).
Manifest read_manifest(const std::string& path);
Manifest parse_manifest(const std::string& text, const std::string& path);

}  // namespace kernelblaster
