// What a run leaves behind (`kernelblaster optimize --out DIR`):
//   trajectory.json   every step and attempt with its decision; no times, so
//                     a replayed run gives the same bytes
//   prompts/TAG.json  each request and reply with token counts and cost (the
//                     KB's reviews too: review-N.json)
//   candidates/TAG.cu each extracted candidate; its verdict is in trajectory.json
//   best.cu           the kept kernel (the original when nothing was kept)
//   original.cu       the original, as the run read it (the report's diff)
//   kb_diff.json      every KB statistic the run changed, before and after
//   summary.json      the outcome, the figures and the times
#pragma once

#include <string>

#include "kb/knowledge_base.h"
#include "optimize/loop.h"

namespace kernelblaster::optimize {

// The deterministic log of a run's decisions (trajectory.json).
std::string trajectory_json(const RunResult& result);

// The statistics that differ between `before` and `after`, each with both
// values (an entry new in `after` has "before": null).
std::string kb_diff_json(const kb::KnowledgeBase& before, const kb::KnowledgeBase& after);

std::string summary_json(const KernelTarget& target, const RunResult& result, double seconds);

// Writes every artifact above into `dir` (created). Throws
// std::runtime_error with one line when it cannot write.
void write_run_artifacts(const std::string& dir, const KernelTarget& target, const RunResult& result,
                         const kb::KnowledgeBase& before, const kb::KnowledgeBase& after, double seconds);

}  // namespace kernelblaster::optimize
