// What a launcher needs that its arguments do not give: file-scope
// variables of its source that it reads and that another function of the
// file sets (a scratch buffer an init function allocates, a handle a setup
// function creates). A program calls the setup first; a harness that calls
// the launcher alone from its recorded arguments finds them unset, and the
// original fails there (an illegal address on a null buffer). Such a
// launcher is not replayed: its kernels' recorded launches are.
#pragma once

#include <string>

#include "harness/launcher.h"

namespace kernelblaster::harness {

// "reads d_PartialHistograms, which initHistogram64 sets": the first such
// variable of `l` in `text` (the source the scan read), with a function
// that sets it; "" when the launcher reads none, or where its definition
// cannot be placed in the text.
std::string state_set_elsewhere(const std::string& text, const Launcher& l);

}  // namespace kernelblaster::harness
