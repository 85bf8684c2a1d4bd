// Reading what a compiler or linker printed.
#pragma once

#include <string>

namespace kernelblaster {

// The first line of compiler or linker output that states an error (nvcc,
// g++, ld), else the last non-empty line: the one line a report shows.
std::string first_error_line(const std::string& output);

}  // namespace kernelblaster
