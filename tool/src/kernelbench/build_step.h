// One compile or link command with a cache: an object whose command line and
// inputs are unchanged is not rebuilt. The driver (libtorch headers) takes
// tens of seconds to compile and is the same for every candidate of a problem.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::kernelbench {

struct BuildStep {
  std::vector<std::string> argv;
  std::string output;               // the file the command makes
  std::vector<std::string> inputs;  // files whose content decides the output
  double timeout_s = 600;
};

struct StepOutcome {
  bool ok = false;
  bool cached = false;
  std::string error;  // first error line, or how the compiler ended
  double seconds = 0;
};

StepOutcome run_build_step(const BuildStep& step);

// -gencode for "sm_90", "sm_90a", "90" or "compute_90"; empty for "".
std::vector<std::string> gencode_flags(const std::string& arch);

}  // namespace kernelblaster::kernelbench
