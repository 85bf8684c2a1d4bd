// One kernel as the unit of a rewrite (issue 40, item 1): its definition
// found wherever it lives in the project (the source or a project header the
// source includes), the code that launches it, and the source as one text
// with that definition replaced, which the judge and the tuned build compile
// in place of the source: the user's files are only ever read.
//
// Read as text (no compiler): comments, strings and preprocessor lines are
// masked first, so a `__global__` in a comment or a macro is not a kernel.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/source_text.h"

namespace kernelblaster::rewrite {

// One `__global__` function's definition, as written.
struct KernelDefinition {
  std::string name;
  std::string file;  // absolute path: the source, or a project header it reaches
  Span span{0, 0};   // in the file's text: from its `template <...>` or first qualifier to its closing brace
  int line = 0;      // 1-based, where the span starts
  bool is_template = false;
  std::string text;  // the span's text
};

// Every kernel defined in `text`, which is the file `file`, in order.
// Declarations without a body are not definitions.
std::vector<KernelDefinition> kernels_in_text(const std::string& text, const std::string& file);

// Every kernel defined in `source` and in the project headers it reaches
// (common/include_scan.h, with `include_dirs`), the source's first, then
// the headers' in first-include order. Only files under `project_root` count:
// a library's headers are not the project's to rewrite.
std::vector<KernelDefinition> kernel_definitions(const std::string& source, const std::vector<std::string>& include_dirs,
                                                 const std::string& project_root);

// The definitions of `name` (one per overload or file; template
// instantiations are one definition).
std::vector<KernelDefinition> named(const std::vector<KernelDefinition>& all, const std::string& name);

// The functions of `text` that launch `kernel` (`kernel<<<` or
// `kernel<...><<<`), each whole as written: what the model is shown beside
// the kernel, so it knows the grid, block and arguments it is launched with.
std::vector<std::string> launching_functions(const std::string& text, const std::string& kernel);

// The source as one text with `def` replaced by `definition`: the text the
// rewrite's judge compiles and the tuned build compiles in place of the
// source, so that only the target's own sources see the change. Every project
// header the source reaches (under `project_root`) is written into the text
// at its first `#include`; a later `#include` of it is dropped, as its guard
// or `#pragma once` would, and headers outside the root stay `#include`s.
// `#line` directives keep every line on its own file and number, the new
// definition's on the lines of the definition it replaces, so compiler
// messages name the user's files. Throws std::runtime_error with a one-line
// reason: a definition no longer where it was read, a file that cannot be
// read, or one the source does not reach.
std::string source_with_kernel(const std::string& source, const std::vector<std::string>& include_dirs,
                               const std::string& project_root, const KernelDefinition& def,
                               const std::string& definition);

// One definition and what takes its place.
struct Replacement {
  KernelDefinition definition;
  std::string text;
};

// The same with several definitions replaced (kernels rewritten one after
// another); two in one file are placed in the order they appear.
std::string source_with_kernels(const std::string& source, const std::vector<std::string>& include_dirs,
                                const std::string& project_root, const std::vector<Replacement>& replacements);

// One kernel as the loop rewrites it: its definition, where the source and
// the project are, the code that launches it and the shapes it was run at.
struct KernelUnit {
  KernelDefinition definition;
  std::vector<std::string> launchers;     // launching_functions() of the source and its project headers
  std::string shapes;                     // the recorded call shapes, one per line; may be empty
  std::string source_path;                // the source the tuned build compiles in its place
  std::vector<std::string> include_dirs;  // the target's
  std::string project_root;
  bool active() const { return !definition.name.empty(); }
};

// One size a harness runs: its label and dimensions.
struct ShapeLine {
  std::string label;
  std::map<std::string, long long> dims;
};

// The shapes the harness runs `u` at, one line per size ("label dim=value
// ..."): where the harness calls several launchers (`called`, each
// dimension named "<launcher>_<dim>"), only the dimensions of the launchers
// among u.launchers; every dimension otherwise.
std::string unit_shapes(const std::vector<ShapeLine>& sizes, const std::vector<std::string>& called,
                        const KernelUnit& u);

// The units of `source`: one per kernel the project defines and the source
// reaches (kernel_definitions), each with the functions that launch it, in
// the source or in the project headers it reaches.
std::vector<KernelUnit> kernel_units(const std::string& source, const std::vector<std::string>& include_dirs,
                                     const std::string& project_root);

// The kernel's name in a profiled name: "void sgemm<128, 8>(int, float*)"
// and "ns::scale(float*, int)" give "sgemm" and "scale".
std::string profiled_kernel_name(const std::string& profiled);

// The unit the time goes to: the first of `kernels_by_time` (profiled names,
// most time first) that one of `units` defines; -1 when none does.
int unit_by_time(const std::vector<KernelUnit>& units, const std::vector<std::string>& kernels_by_time);

// Every unit a profiled kernel names, most time first, each once.
std::vector<int> units_by_time(const std::vector<KernelUnit>& units, const std::vector<std::string>& kernels_by_time);

}  // namespace kernelblaster::rewrite
