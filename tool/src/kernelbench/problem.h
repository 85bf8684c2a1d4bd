// A KernelBench-CUDA problem directory (init.cu + driver.cpp) and the checks
// that a kernel source fits its driver, with one-line reasons when not.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernelbench/prototype.h"

namespace kernelblaster::kernelbench {

struct Problem {
  std::string dir;
  std::string name;           // the directory's last component, e.g. "019_ReLU"
  std::string driver_source;  // driver.cpp as shipped
  std::string init_path;      // init.cu: the original kernel, the reference
  Prototype launcher;         // the driver's declaration
};

// A kernel source (init.cu or a candidate) checked against the driver.
struct KernelSource {
  std::string path;
  std::string source;      // as read
  Prototype definition;    // its launcher definition
};

// Every problem directory (one holding driver.cpp) at or under `root`,
// sorted; `root` itself when it is one. Linked directories are followed (a
// directory of links to chosen problems is a subset), each real problem
// once, at most 8 levels down (a link to an ancestor ends there).
std::vector<std::string> problem_directories(const std::string& root);

// A problem's name under the `root` it was found in ("level1/019_ReLU"),
// taken lexically: a linked problem keeps the name of its link, where
// fs::relative would follow it out of `root`. The directory's own name
// when `dir` is not under `root`.
std::string problem_name(const std::string& dir, const std::string& root);

// One job of an array that spreads a dataset (`--shard I/N`): it takes the
// problems whose place in the sorted list is I modulo N, so the same
// dataset gives every job the same share, the shares are disjoint, cover
// every problem and differ in size by one at most.
struct Shard {
  int index = 0, count = 1;
  bool all() const { return count == 1; }
  std::string text() const;  // "2/8"
};

// "I/N", or "auto/N": I from the job array's environment (Slurm's
// SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN, else a Kubernetes indexed
// Job's JOB_COMPLETION_INDEX). Throws std::invalid_argument with a one-line
// reason. `env` reads a variable (nullptr when unset).
Shard parse_shard(const std::string& text, const std::function<const char*(const char*)>& env);
// The problems of `sorted` (problem_directories' order) that are the shard's.
std::vector<std::string> shard_of(const std::vector<std::string>& sorted, const Shard& shard);

// Reads driver.cpp and finds the launcher prototype. False with `why` set
// when a file is missing or the driver declares no launcher.
bool load_problem(const std::string& dir, Problem* out, std::string* why);

// Pure text form of load_problem's parsing step, for tests.
bool parse_driver(const std::string& driver_source, Prototype* launcher, std::string* why);

// Whether `source` defines the launcher the driver declares, with as many
// parameters. `label` names the file in messages ("candidate.cu").
bool check_kernel_source(const Prototype& launcher, const std::string& source, const std::string& label,
                         Prototype* definition, std::string* why);

// Reads `path` and checks it; false with `why` on a read error too.
bool load_kernel_source(const Problem& problem, const std::string& path, KernelSource* out, std::string* why);

}  // namespace kernelblaster::kernelbench
