// Tunables and constraints of a hand-written manifest (the JSON form of
// judge/manifest.h), added to those the source declares: {"tunables": [{"name", "values", "technique"}], "constraints": ["..."]}.
#pragma once

#include <string>
#include <vector>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// Adds the manifest's tunables and constraints to `decl`. The default of a
// manifest tunable is the source's guarded #define, else NAME=VALUE among
// `definitions` (the manifest's -D list), else its first value. A tunable
// declared both in the source and in the manifest is an error. Throws
// SpaceError "manifest: reason".
void add_manifest_space(SpaceDecl& decl, const std::string& manifest_path, const std::string& source_text,
                        const std::string& source_file, const std::vector<std::string>& definitions);

}  // namespace kernelblaster::tuner
