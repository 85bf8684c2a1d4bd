// The kernels a source compiles, read from its text where no C++ parser is
// at hand (a kernelblaster built without libclang): the names of the
// __global__ definitions in the source and in the headers it includes with
// quotes (found beside it or in the target's include directories, never in
// the CUDA toolkit's), comments and string literals left out. Kernel-level
// capture needs only these names; launchers need the parser.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::harness {

// In the order first seen, each name once. Unreadable files are skipped.
std::vector<std::string> kernels_defined_in(const std::string& source, const std::vector<std::string>& include_dirs,
                                            const std::string& toolkit_include);

// The names of the __global__ definitions in one text (no includes followed).
std::vector<std::string> kernel_definitions_in_text(const std::string& text);

// The parameter counts of the __global__ definitions named `name` in one
// text, each once (empty when the text defines none): a recorded kernel of
// that name with another count is another program's kernel.
std::vector<std::size_t> kernel_parameter_counts(const std::string& text, const std::string& name);

// The kernels the body of host function `function` launches with `<<<...>>>`
// in one text (template arguments dropped), in order, each once: what the
// parser could not see where the CUDA launch syntax did not parse.
std::vector<std::string> kernels_launched_in(const std::string& text, const std::string& function);

}  // namespace kernelblaster::harness
