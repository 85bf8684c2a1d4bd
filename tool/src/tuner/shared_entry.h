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
// and `-` (`#undef NAME` too). Not checked here: that a define names a
// tunable this build's discovery finds, and a value inside its domain; nor
// a whole tuned text (an LLM's kept rewrite), which is applied as before.
#pragma once

#include <string>
#include <vector>

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

}  // namespace kernelblaster::tuner
