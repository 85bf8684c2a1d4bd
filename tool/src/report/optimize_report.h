// The reports of `kernelblaster optimize --out DIR`: one run (trajectory.json
// and summary.json: the steps as a tree with technique, state, verdict and
// speedup, the fix attempts, the kept kernel against the original, tokens
// and cost, the KB diff), and a KernelBench directory run (a folder of such
// runs, one per problem: the per-problem table, the geometric-mean speedup
// and the fast_p curve).
#pragma once

#include <string>

#include "report/document.h"

namespace kernelblaster::report {

// A run directory holds summary.json and trajectory.json.
bool is_optimize_run(const std::string& dir);
// A directory run holds at least one run directory one level down.
bool is_directory_run(const std::string& dir);

// Throw std::runtime_error (one line) for files they cannot read.
Document optimize_report(const std::string& dir);
Document directory_report(const std::string& dir);

// fast_p: the share of problems whose kept kernel is correct and more than
// p times as fast as the original.
struct ProblemOutcome {
  std::string name;
  bool correct = false;  // a kernel of the model's was verified
  double speedup = 1.0;  // of the kept kernel (1: the original kept)
};
double fast_p(const std::vector<ProblemOutcome>& problems, double p);
double geometric_mean_speedup(const std::vector<ProblemOutcome>& problems);

}  // namespace kernelblaster::report
