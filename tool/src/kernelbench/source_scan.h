// Lexical helpers over C++/CUDA source text. KernelBench problems are plain
// files, and the tool only needs to find one function and a few calls, so a
// masked text scan is enough; a real parser would pull in a compiler.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/source_lines.h"  // is_identifier_char, code_only

namespace kernelblaster::kernelbench {

// The masked text these helpers take is common/source_lines.h's
// code_only(): comments and the insides of literals blanked, offsets kept.

// Positions of `word` as a whole identifier in `masked` text.
std::vector<std::size_t> find_identifier(const std::string& masked, const std::string& word);

// Index of the bracket closing the one at `open` ('(' or '{'), or npos.
std::size_t matching_close(const std::string& masked, std::size_t open);

// Next position at or after `pos` that is not whitespace, or npos.
std::size_t skip_space(const std::string& masked, std::size_t pos);

// `text` with runs of whitespace collapsed to one space and trimmed.
std::string collapse_space(const std::string& text);

}  // namespace kernelblaster::kernelbench
