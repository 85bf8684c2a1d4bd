// Whether a harness of the user's runs anything of its source (issue 27): a
// harness that names none of the source's host launchers and none of the
// kernels it compiles measures nothing a tuning of the source changes. Read
// from the texts (word matches), so it can only under-warn: a harness that
// names a launcher in a comment alone passes. It needs libclang (the
// launchers are what harnesses call): without it nothing is said.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::harness {

// Empty when the harness names something of the source; else one line,
// e.g. "the harness h.cu names none of x.cu's launchers (run_x) or kernels
// (x_kernel): it measures nothing a tuning of x.cu changes", or why the
// check could not be made (libclang could not read the source).
std::string harness_coverage_warning(const std::string& harness, const std::string& source,
                                     const std::vector<std::string>& include_dirs,
                                     const std::vector<std::string>& definitions);

}  // namespace kernelblaster::harness
