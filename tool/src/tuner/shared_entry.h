// What a tuned result kept outside this run may carry into a build (issue
// 74): a results-cache entry, a lockfile's, a server's. Each is data that
// someone else may have written: a lockfile edited in a pull request, a
// store whose PUT anyone can reach. So before a build compiles with it, its
// flags must be ones this tuner sets, and its defines plain settings: a
// flag such as `--compiler-bindir=DIR` made nvcc run a program of the
// entry author's choosing during a GPU-less build (2026-12-07), and a
// define's value is pasted into the user's source.
//
// Checked here: every flag is one of the tuner's flag dimensions
// (flag_space.h) for the build's architecture; every define and prelude
// line sets a C identifier to one token of letters, digits, `_`, `.`, `+`
// and `-` (`#undef NAME` too); and (settings_refusal) every define names a
// tunable this build's own reading of the source finds (source_space.h),
// set to one of its values, the whole keeping every constraint. Not
// checked: a whole tuned text (an LLM's kept rewrite, a copy with project
// headers flattened or a kernel rewritten), which is applied as before.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// Whether `flag` is one the tuner may set for `arch` (any of its flag
// dimensions' values: the fast-math parts, --maxrregcount=16..255,
// -Xptxas=-dlcm=ca|cg|cs|cv, -arch=<arch's arch-specific variant>).
bool tuner_sets_flag(const std::string& flag, const std::string& arch);

// "" when a setting is plain: `name` an identifier, `value` one token (see above).
std::string setting_refusal(const std::string& name, const std::string& value);

// "" when the entry's flags, defines and prelude lines are within the
// bound; else one phrase naming the first that is not ("flag
// '--compiler-bindir=/tmp/x' is not one the tuner sets").
std::string entry_refusal(const std::vector<std::string>& flags,
                          const std::vector<std::pair<std::string, std::string>>& defines, const std::string& prelude,
                          const std::string& arch);

// The defines an entry sets: its `defines` and its prelude's `#define`s.
std::vector<std::pair<std::string, std::string>> entry_settings(
    const std::vector<std::pair<std::string, std::string>>& defines, const std::string& prelude);

// "" when every setting names a tunable of `decl`, holds one of its values,
// and the configuration they make (the others at the source's values) keeps
// every constraint; else one phrase naming the first that does not.
std::string settings_refusal(const SpaceDecl& decl, const std::vector<std::pair<std::string, std::string>>& settings);

}  // namespace kernelblaster::tuner
