#include "tuner/sample_contexts.h"

#include <algorithm>
#include <cmath>

#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/search_loop.h"

namespace kernelblaster::tuner {
namespace {

using policy::Action;
using policy::Context;
using policy::HistoryEntry;
using policy::KbEstimate;

// A kernel's context as the tuner's first select() sees it.
Context tuner_context(const std::string& directives, const LoopOptions& opt,
                      KbEstimate (*estimate)(const Configuration&)) {
  SpaceDecl decl = parse_directives(directives, opt.facts.kernel, opt.facts.arch);
  ConfigSpace space = enumerate_space(decl, decl.flags);
  std::vector<KbEstimate> estimates;
  for (const Configuration& c : space.configs) estimates.push_back(estimate(c));
  Context ctx = first_context(space, estimates, opt);
  ctx.seed = opt.seed;  // the run's seed itself, so tests can name it
  return ctx;
}

const char* const kMemoryBoundSource =
    "// kernelblaster: tunable BLOCK_SIZE 128 256 512 1024 technique=block_size_adaptation\n"
    "// kernelblaster: tunable ITEMS 1 2 4 8 technique=thread_coarsening\n"
    "// kernelblaster: constraint BLOCK_SIZE * ITEMS <= 4096\n"
    "// kernelblaster: flags none\n"
    "#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 128\n#endif\n"
    "#ifndef ITEMS\n#define ITEMS 1\n#endif\n";

// What a KB that has seen a few such kernels predicts: bigger blocks and
// some coarsening help, too much of either hurts.
KbEstimate memory_bound_estimate(const Configuration& c) {
  KbEstimate kb;
  double lb = std::log2(std::stod(c.values.at("BLOCK_SIZE")) / 128.0), li = std::log2(std::stod(c.values.at("ITEMS")));
  kb.tries = static_cast<std::int64_t>(2 * lb + li);
  kb.successes = kb.tries / 2;
  kb.predicted_speedup = 1.0 + 0.06 * lb - 0.02 * lb * lb + 0.07 * li - 0.015 * li * li;
  kb.mean_speedup = kb.tries ? kb.predicted_speedup : 1.0;
  kb.confidence = std::min(1.0, kb.tries / 6.0);
  return kb;
}

Context memory_bound_kernel(std::uint64_t seed) {
  LoopOptions opt;
  opt.facts = {"softmax.cu", "memory_bound", "sm_90", "NVIDIA H100 80GB HBM3", {{"dram_throughput_pct", 86},        {"sm_throughput_pct", 24},
                 {"achieved_occupancy_pct", 41},     {"theoretical_occupancy_pct", 50},
                 {"occupancy_limited_by_registers", 0}, {"occupancy_limited_by_block_size", 1},
                 {"block_size", 128},                {"registers_per_thread", 32},
                 {"global_sectors_per_request", 4},  {"duration_us", 182.5}}};
  opt.max_evals = 12;
  opt.budget_s = 600;
  opt.seed = seed;
  return tuner_context(kMemoryBoundSource, opt, memory_bound_estimate);
}

// Per flag: what the KB predicts and how sure it is.
KbEstimate compute_bound_estimate(const Configuration& c) {
  KbEstimate kb;
  kb.confidence = 0.5;
  for (const std::string& f : c.flags) {
    if (f == "-use_fast_math") kb.predicted_speedup *= 1.15, kb.confidence = 0.7;
    if (f == "--maxrregcount=64") kb.predicted_speedup *= 1.05;
    if (f == "--maxrregcount=96") kb.predicted_speedup *= 1.08;
    if (f == "-Xptxas=-dlcm=ca") kb.predicted_speedup *= 1.02;
    if (f == "-Xptxas=-dlcm=cg") kb.predicted_speedup *= 0.97;
  }
  kb.tries = static_cast<std::int64_t>(kb.confidence * 10);
  kb.successes = kb.predicted_speedup > 1 ? kb.tries * 2 / 3 : kb.tries / 4;
  kb.mean_speedup = kb.predicted_speedup;
  return kb;
}

Context compute_bound_kernel(std::uint64_t seed) {
  LoopOptions opt;
  opt.facts = {"gemm_tile.cu", "compute_bound", "sm_90", "NVIDIA H200", {{"sm_throughput_pct", 81}, {"dram_throughput_pct", 31}, {"ipc", 3.1},
                 {"registers_per_thread", 128}, {"spill_bytes", 64}, {"achieved_occupancy_pct", 22},
                 {"occupancy_limited_by_registers", 1}, {"duration_us", 950}}};
  opt.max_evals = 7;
  opt.budget_s = 300;
  opt.seed = seed;
  return tuner_context("// kernelblaster: flags fast_math maxrregcount=64,96 dlcm=ca,cg\n", opt,
                       compute_bound_estimate);
}

// The memory-bound space after five measurements.
Context with_history(std::uint64_t seed) {
  Context ctx = memory_bound_kernel(seed);
  struct Tried {
    const char* id;
    Status status;
    double speedup;
    bool accepted;
  };
  const Tried tried[] = {{"BLOCK_SIZE=256", Status::ok, 1.12, true},
                         {"ITEMS=2", Status::ok, 0.95, false},
                         {"BLOCK_SIZE=1024,ITEMS=4", Status::wrong_result, 0, false},
                         {"BLOCK_SIZE=512,ITEMS=8", Status::compile_failed, 0, false},
                         {"BLOCK_SIZE=256,ITEMS=4", Status::ok, 1.31, true}};
  for (const Tried& t : tried) {
    auto it = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == t.id; });
    HistoryEntry h;
    h.action_id = t.id;
    h.end = t.status == Status::ok ? AttemptEnd::verified : AttemptEnd::rejected;
    h.status = t.status;
    h.speedup = t.speedup;
    h.median_us = t.speedup > 0 ? 182.5 / t.speedup : 0;
    h.accepted = t.accepted;
    if (it != ctx.actions.end()) {
      h.technique = it->technique;
      h.settings = it->settings;
      ctx.actions.erase(it);
    }
    ctx.history.push_back(h);
  }
  ctx.best_speedup = 1.31;
  ctx.evaluations_left = 7;
  ctx.seconds_left = 420;
  return ctx;
}

Context end_of_search(std::uint64_t seed) {
  Context ctx = with_history(seed);
  ctx.actions.clear();
  ctx.evaluations_left = 0;
  ctx.seconds_left = 0;
  return ctx;
}

}  // namespace

std::vector<SampleContext> sample_contexts(std::uint64_t seed) {
  return {{"memory_bound", memory_bound_kernel(seed)},
          {"compute_bound_flags", compute_bound_kernel(seed)},
          {"with_history", with_history(seed)},
          {"end_of_search", end_of_search(seed)}};
}

HistoryEntry sample_result(const Context& ctx, const std::string& action_id) {
  if (action_id.empty()) return ctx.history.empty() ? HistoryEntry{} : ctx.history.back();
  HistoryEntry h;
  h.action_id = action_id;
  h.end = AttemptEnd::verified;
  h.status = Status::ok;
  h.speedup = ctx.best_speedup * 1.05;
  h.median_us = 100.0 / h.speedup;
  for (const Action& a : ctx.actions) {
    if (a.id == action_id) {
      h.technique = a.technique;
      h.settings = a.settings;
    }
  }
  return h;
}

}  // namespace kernelblaster::tuner
