// Deterministic checks of written code (an LLM's candidate) before anything
// is compiled, relative to the original it replaces. A candidate may not
// reach outside the computation: no process, file, network, environment,
// thread or dynamic-loading calls; no header or library the original does
// not use (cuBLAS, cuDNN, Thrust, CUB, cuRAND, torch, CUTLASS, ..., and the
// evaluation's own runtime, which knows the seeds and the checks); no
// inline PTX that reads a timer, and no timer intrinsics the original does
// not use; nothing that hides code from these checks (computed includes,
// token pasting, raw string literals) unless the original does the same.
//
// The checks read tokens outside comments and literals (code_only), so a
// name in a comment or a string is never a finding; inline PTX is the one
// place literals are read.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::rewrite {

struct Finding {
  std::string rule;    // "include", "host_call", "library", "timer", "hidden_code"
  int line = 0;        // 1-based, in the candidate
  std::string detail;  // one line: what and why
};

std::vector<Finding> check_candidate(const std::string& candidate, const std::string& original);

// "line 12: fopen is a file call (rule host_call)"; the first finding and a
// count of the rest: the one line a verdict shows.
std::string findings_line(const std::vector<Finding>& findings);

}  // namespace kernelblaster::rewrite
