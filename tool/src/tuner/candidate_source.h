// The text and compile settings of one configuration's candidate. The text
// is `#define NAME VALUE` for each non-default tunable, then
// `#line 1 "<absolute original path>"`, then the original unchanged, so
// compiler messages point at the user's file.
#pragma once

#include <string>

#include "judge/candidate_build.h"
#include "tuner/config_space.h"

namespace kernelblaster::tuner {

// `base_definitions` are the -D of the target; a tunable also defined there
// gets an #undef first so the candidate's value wins without a warning.
// `#line 1 "<path>"` with the path absolute, normalized and escaped: the
// one spelling every tuned text uses to point back at the user's file.
std::string line_directive(const std::string& path);

std::string candidate_source(const std::string& original_text, const std::string& original_path,
                             const Configuration& config, const std::vector<std::string>& base_definitions = {});

// The target's settings plus the configuration's flags; "-arch=X" replaces
// the architecture instead of being appended.
CompileSettings candidate_settings(const CompileSettings& base, const Configuration& config);

}  // namespace kernelblaster::tuner
