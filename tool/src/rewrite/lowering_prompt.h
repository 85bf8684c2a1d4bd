// What the LLM is told: the lowering prompt (apply one technique, chosen by
// the policy from the KB, to the current kernel) and the fix prompt (the
// last attempt and why it failed). The rules in the system message are the
// ones the engine and the static checks enforce, so a model that follows
// them is never rejected for a rule it was not told.
//
// Rendering is deterministic (sorted metrics, fixed number formats): the
// same input gives the same bytes, so the LLM client's record/replay cache
// hits.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "llm/types.h"
#include "rewrite/kernel_unit.h"

namespace kernelblaster::rewrite {

// The kernel a rewrite is for, as the optimize loop holds it.
struct KernelTarget {
  std::string kernel;    // the source's file name, "softmax.cu"
  std::string source;    // the original's text
  std::string launcher;  // the host function the harness calls
  std::string contract;  // what must not change, in words (the launcher's signature, inputs and outputs)
  std::string arch;      // "sm_90"
  std::string gpu;       // "NVIDIA H100 80GB HBM3"
  // Active: the rewrite is of this one kernel (its definition wherever it
  // lives), the model is shown it, its launchers and shapes instead of the
  // whole source, and replies with its new definition only.
  KernelUnit unit;
  // The project's kernels the source reaches; the loop picks `unit` among
  // them by where the original's GPU time goes (empty: the whole source).
  std::vector<KernelUnit> units;
};

// A lowering request's input: the target, with `source` the whole source
// the step starts from (the original or an earlier step's result), and for
// a kernel unit `definition`, the kernel's definition the step starts from.
struct LoweringInput : KernelTarget {
  std::string definition;
  kb::State state;       // the classified state (id empty: unclassified)
  kb::Technique technique;
  std::optional<kb::Stats> stats;          // the KB's record of this technique, state and arch
  std::map<std::string, double> metrics;   // the base's profile
  double base_median_us = 0;               // the base's measured time (0: unknown)
  std::vector<std::string> tried;          // earlier steps of this trajectory, one line each
};

// One fix attempt's input: the code that failed and the one-line cause plus
// its detail (compiler error lines, the engine's verdict, static findings).
struct FixInput {
  std::string code;
  std::string failure;  // "compile_failed", "wrong_result", "static_check", ...
  std::string detail;   // cut to kMaxFeedbackChars
  int attempt = 1;      // 1-based
};

inline constexpr std::size_t kMaxFeedbackChars = 4000;

// The system and user messages of a lowering step.
llm::Request lowering_request(const LoweringInput& input);

// The lowering request, the failed attempt as the assistant's turn, and the
// failure as the next user turn.
llm::Request fix_request(const LoweringInput& input, const FixInput& fix);

// The profile in a few lines: the roofline position where the harness
// declared its work, else the throughput counters; then every metric, sorted.
std::string profile_summary(const std::map<std::string, double>& metrics);

// The kernel's speed of light (profile/roofline.h, `roofline_bound_pct`):
// how much faster the roof at its arithmetic intensity lets it be, and the
// bound on one call's time from `median_us` (0: unknown); "" without
// ceilings or declared work.
std::string speed_of_light(const std::map<std::string, double>& metrics, double median_us);

}  // namespace kernelblaster::rewrite
