// The pieces of a native harness's text that every writer of one shares:
// `harness init` (harness_writer.h, from a signature) and synthesis from a
// capture (capture_harness.h, from recorded calls).
#pragma once

#include <string>
#include <vector>

#include "harness/launcher.h"

namespace kernelblaster::harness {

// The C++ type of a harness DType name ("f32" -> "float"); f32 when empty.
std::string cpp_type(const std::string& element);
bool integer_element(const std::string& element);
// Bytes per element of a harness DType name (f32 when empty).
int element_bytes(const std::string& element);

// "ns::name".
std::string qualified_name(const Launcher& l);
// The launcher's declaration, spelled without the source's typedefs.
std::string launcher_prototype(const Launcher& l);

// The argument expression inside `.launch([](Call& c) {...})`.
std::string buffer_argument(const LauncherParam& p, bool output);
std::string dim_argument(const LauncherParam& p);

// {"a", "b"}; {{"n", 4096}, ...}.
std::string shape_literal(const std::vector<std::string>& shape);
std::string dims_literal(const std::vector<std::pair<std::string, long long>>& dims);

// The element type a launcher's return value is compared as ("f32" for a
// float, "i64" for a size_t, ...); empty for void and for what is no number.
std::string returned_element(const std::string& return_type);
// The name of the output that holds a launcher's return value: "returned",
// unless a parameter has that name.
std::string returned_output(const Launcher& l);

// The whole file: `comment` (lines, each starting "// "), the prototype,
// then main() with `chain` (the .size/.input/... lines, each indented six
// spaces and ending in a newline) and the call with `arguments` (one per
// parameter, in order). A launcher that returns a number gets one more
// output, its return value (returned_output), copied to the device after
// the call and compared as any output is.
std::string harness_file(const std::string& comment, const Launcher& l, const std::string& chain,
                         const std::vector<std::string>& arguments);

// One launcher's call in a harness that drives several: its arguments, and
// the name its return value's output takes (returned_output with its prefix).
struct HarnessCall {
  Launcher launcher;
  std::vector<std::string> arguments;
  std::string returned;  // empty: it returns nothing to compare
  // The launcher's definition, where the harness defines it (a kernel-level
  // capture, kernel_capture.h); empty: it is declared, and the source defines it.
  std::string definition;
  // Its buffers' .input/.output lines (indented six spaces, each ending in
  // a newline), declared only when it runs; with one launcher they are in
  // the chain instead.
  std::string buffers;
};
// The same for a source with several launchers: each is declared, and the
// launch calls each in turn, so every kernel a change to the source touches
// runs in the harness. `name` is the harness's. The harness names its
// launchers on the marker line of common/launcher_mask.h, and each
// launcher's buffers and call stand under `kb_runs(k)`, so a tuner can
// build it to run one launcher's kernels alone.
std::string harness_file(const std::string& comment, const std::string& name, const std::vector<HarnessCall>& calls,
                         const std::string& chain);

}  // namespace kernelblaster::harness
