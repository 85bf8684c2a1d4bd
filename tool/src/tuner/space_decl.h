// What can be tuned in one source: tunable macros, constraints between them,
// and the nvcc flag dimensions. Declared in the source (directives.h) or in
// the CMake manifest (manifest_space.h); turned into configurations by
// config_space.h.
#pragma once

#include <string>
#include <vector>

#include "tuner/constraint.h"

namespace kernelblaster::tuner {

// A malformed declaration: what() is one line, "file:line: reason".
class SpaceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Tunable {
  std::string name;                 // the macro, e.g. BLOCK_SIZE
  std::vector<std::string> values;  // tokens, the default among them
  std::string default_value;        // the source's #define (what the original compiles with)
  std::string technique;            // KB technique id
  std::string origin;               // "file:line" of the declaration, for messages
  // Tunables of one group of launch sites (launch_tunables.h) change
  // together; the space changes one group at a time. "": not in a group.
  std::string group;
};

// One flag dimension. values[0] is always "" (no flag: the original's
// compile); the others are single nvcc arguments, e.g. "--maxrregcount=64".
// A value "-arch=sm_90a" replaces the architecture instead of being appended.
struct FlagDimension {
  std::string name;       // "fast_math", "maxrregcount", "dlcm", "arch"
  std::string technique;  // KB technique id
  std::vector<std::string> values;
};

struct SpaceDecl {
  std::vector<Tunable> tunables;
  std::vector<Constraint> constraints;
  // The flag dimensions the source restricts itself to ("flags" directive);
  // unset: the defaults of flag_space.h.
  bool flags_declared = false;
  std::vector<FlagDimension> flags;
  // Whether macros without a directive may be discovered (discovery.h);
  // `// kernelblaster: discover off` turns it off.
  bool discover = true;
};

// The KB technique of a tunable named `name` when the declaration names none:
// block sizes, threads, warps and tiles → block_size_adaptation; items, work,
// vector widths and coarsening factors → thread_coarsening; unroll factors →
// loop_unrolling; anything else → parameter_tuning.
std::string infer_technique(const std::string& name);

}  // namespace kernelblaster::tuner
