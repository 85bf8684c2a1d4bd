// The #include lines of C++/CUDA text and the project headers they reach,
// read as text (no preprocessor): what the content key hashes, what the
// launch sites' reading follows into headers, and where a harness learns the
// toolkit libraries a source uses.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kernelblaster {

// Each `#include <x>` / `#include "x"` line of `text` (commented-out lines
// excluded): the name as written, and whether it was quoted.
std::vector<std::pair<std::string, bool>> include_directives(const std::string& text);

// `name` as an #include line in a file of `dir` finds it: beside that file
// when quoted, then in `include_dirs`; the canonical path, "" when nowhere.
std::string resolve_include(const std::string& dir, const std::string& name, bool quoted,
                            const std::vector<std::string>& include_dirs);

// The project headers `source` includes, transitively: #include "x" is looked
// up beside the including file, then in `include_dirs`; #include <x> in
// `include_dirs` only. Headers under `skip_prefixes` (the CUDA toolkit, whose
// version the key holds anyway) and ones not found are left out. Absolute
// paths, first-seen order, no duplicates. Conditional includes count whether
// or not they are compiled: one header too many only costs a rebuild.
std::vector<std::string> scan_includes(const std::string& source, const std::vector<std::string>& include_dirs,
                                       const std::vector<std::string>& skip_prefixes = {});

// The same for a text held in memory whose file would sit in `dir`: its own
// includes resolved there, and what they include in turn.
std::vector<std::string> scan_includes_of_text(const std::string& text, const std::string& dir,
                                               const std::vector<std::string>& include_dirs);

}  // namespace kernelblaster
