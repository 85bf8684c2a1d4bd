#include "policy/sample_contexts.h"

#include <algorithm>
#include <cmath>

namespace kernelblaster::policy {
namespace {

Context memory_bound_kernel(std::uint64_t seed) {
  Context ctx;
  ctx.kernel = "softmax.cu";
  ctx.state = "memory_bound";
  ctx.arch = "sm_90";
  ctx.gpu = "NVIDIA H100 80GB HBM3";
  ctx.metrics = {{"dram_throughput_pct", 86},        {"sm_throughput_pct", 24},
                 {"achieved_occupancy_pct", 41},     {"theoretical_occupancy_pct", 50},
                 {"occupancy_limited_by_registers", 0}, {"occupancy_limited_by_block_size", 1},
                 {"block_size", 128},                {"registers_per_thread", 32},
                 {"global_sectors_per_request", 4},  {"duration_us", 182.5}};
  for (int block : {128, 256, 512, 1024}) {
    for (int items : {1, 2, 4, 8}) {
      if (block * items > 4096) continue;  // the kernel's declared constraint
      Action a;
      a.id = "BLOCK_SIZE=" + std::to_string(block) + ",ITEMS=" + std::to_string(items);
      a.technique = items == 1 ? "block_size_adaptation" : "thread_coarsening";
      a.settings = {{"BLOCK_SIZE", std::to_string(block)}, {"ITEMS", std::to_string(items)}};
      double lb = std::log2(block / 128.0), li = std::log2(items);
      a.kb.tries = static_cast<std::int64_t>(2 * lb + li);
      a.kb.successes = a.kb.tries / 2;
      a.kb.predicted_speedup = 1.0 + 0.06 * lb - 0.02 * lb * lb + 0.07 * li - 0.015 * li * li;
      a.kb.mean_speedup = a.kb.tries ? a.kb.predicted_speedup : 1.0;
      a.kb.confidence = std::min(1.0, a.kb.tries / 6.0);
      ctx.actions.push_back(a);
    }
  }
  ctx.evaluations_left = 12;
  ctx.seconds_left = 600;
  ctx.seed = seed;
  return ctx;
}

Context compute_bound_kernel(std::uint64_t seed) {
  Context ctx;
  ctx.kernel = "gemm_tile.cu";
  ctx.state = "compute_bound";
  ctx.arch = "sm_90";
  ctx.gpu = "NVIDIA H200";
  ctx.metrics = {{"sm_throughput_pct", 81}, {"dram_throughput_pct", 31}, {"ipc", 3.1},
                 {"registers_per_thread", 128}, {"spill_bytes", 64}, {"achieved_occupancy_pct", 22},
                 {"occupancy_limited_by_registers", 1}, {"duration_us", 950}};
  struct FlagAction {
    const char* flags;
    const char* technique;
    double predicted;
    double confidence;
  };
  const FlagAction flag_actions[] = {
      {"-use_fast_math", "fast_math", 1.15, 0.7},
      {"--maxrregcount=64", "register_pressure_reduction", 1.05, 0.4},
      {"--maxrregcount=96", "register_pressure_reduction", 1.08, 0.4},
      {"-Xptxas -dlcm=ca", "cache_policy_flags", 1.02, 0.2},
      {"-Xptxas -dlcm=cg", "cache_policy_flags", 0.97, 0.5},
      {"-gencode arch=compute_90a,code=sm_90a", "arch_specific_codegen", 1.03, 0.3},
      {"-use_fast_math --maxrregcount=96", "fast_math", 1.18, 0.2},
  };
  for (const FlagAction& f : flag_actions) {
    Action a;
    a.id = std::string("flags=") + f.flags;
    a.technique = f.technique;
    a.settings = {{"flags", f.flags}};
    a.kb.predicted_speedup = f.predicted;
    a.kb.confidence = f.confidence;
    a.kb.tries = static_cast<std::int64_t>(f.confidence * 10);
    a.kb.successes = f.predicted > 1 ? a.kb.tries * 2 / 3 : a.kb.tries / 4;
    a.kb.mean_speedup = f.predicted;
    ctx.actions.push_back(a);
  }
  ctx.evaluations_left = 7;
  ctx.seconds_left = 300;
  ctx.seed = seed;
  return ctx;
}

// The memory-bound space after five measurements.
Context with_history(std::uint64_t seed) {
  Context ctx = memory_bound_kernel(seed);
  struct Tried {
    const char* id;
    const char* status;
    double speedup;
    bool accepted;
  };
  const Tried tried[] = {{"BLOCK_SIZE=256,ITEMS=1", "ok", 1.12, true},
                         {"BLOCK_SIZE=128,ITEMS=2", "ok", 0.95, false},
                         {"BLOCK_SIZE=1024,ITEMS=4", "wrong_result", 0, false},
                         {"BLOCK_SIZE=512,ITEMS=8", "compile_error", 0, false},
                         {"BLOCK_SIZE=256,ITEMS=4", "ok", 1.31, true}};
  for (const Tried& t : tried) {
    auto it = std::find_if(ctx.actions.begin(), ctx.actions.end(), [&](const Action& a) { return a.id == t.id; });
    HistoryEntry h;
    h.action_id = t.id;
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
  h.status = "ok";
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

}  // namespace kernelblaster::policy
