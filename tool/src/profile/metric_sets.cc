#include "profile/metric_sets.h"

#include <cmath>
#include <set>
#include <utility>

namespace kernelblaster::profile {
namespace {

// One rename: CUPTI name -> our name, value * scale.
struct Rename {
  const char* cupti;
  const char* ours;
  double scale;
};

// The one-pass set on GH100 (12 metrics, 1 pass).
const Rename kCheap[] = {
    {"gpu__time_duration.sum", "duration_us", 1e-3},  // ns -> us
    {"gpc__cycles_elapsed.max", "elapsed_cycles", 1},
    {"sm__cycles_active.avg", "sm_active_cycles", 1},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct", 1},
    {"dram__bytes_read.sum", "dram_bytes_read", 1},
    {"dram__bytes_write.sum", "dram_bytes_write", 1},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct", 1},
    {"l1tex__t_sector_hit_rate.pct", "l1_hit_rate_pct", 1},
    {"smsp__inst_executed.sum", "instructions", 1},
    {"sm__inst_executed.avg.per_cycle_active", "ipc", 1},
    {"smsp__issue_active.avg.pct_of_peak_sustained_active", "issue_active_pct", 1},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_pipe_pct", 1},
};

// Added by the full set.
const Rename kFull[] = {
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_throughput_pct", 1},
    {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory_throughput_pct", 1},
    {"l1tex__throughput.avg.pct_of_peak_sustained_active", "l1_throughput_pct", 1},
    {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2_throughput_pct", 1},
    {"lts__t_sector_hit_rate.pct", "l2_hit_rate_pct", 1},
};

// Inputs of derived metrics only (no rename of their own).
const char* kFullRaw[] = {
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    // Floating-point work as Nsight Compute's roofline counts it: per thread
    // instruction executed, an FMA counting two.
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
};

const std::vector<std::string> kStalls = {
    "long_scoreboard", "short_scoreboard", "barrier",   "mio_throttle",     "lg_throttle",
    "math_pipe_throttle", "wait",          "not_selected", "selected",      "no_instruction",
    "branch_resolving", "dispatch_stall",  "drain",     "membar",           "sleeping",
    "tex_throttle",    "imc_miss",         "misc",      "gmma"};

std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}

std::vector<std::string> build(MetricSet set) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& n) {
    if (seen.insert(n).second) out.push_back(n);
  };
  for (const Rename& r : kCheap) add(r.cupti);
  if (set == MetricSet::full) {
    for (const Rename& r : kFull) add(r.cupti);
    for (const char* n : kFullRaw) add(n);
    for (const std::string& s : kStalls) add(stall_metric(s));
  }
  return out;
}

std::optional<double> get(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  if (it == m.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

}  // namespace

const char* metric_set_name(MetricSet set) { return set == MetricSet::cheap ? "cheap" : "full"; }

std::optional<MetricSet> metric_set_from_name(const std::string& name) {
  if (name == "cheap") return MetricSet::cheap;
  if (name == "full") return MetricSet::full;
  return std::nullopt;
}

const std::vector<std::string>& cupti_metrics(MetricSet set) {
  static const std::vector<std::string> cheap = build(MetricSet::cheap);
  static const std::vector<std::string> full = build(MetricSet::full);
  return set == MetricSet::cheap ? cheap : full;
}

const std::vector<std::string>& stall_reasons() { return kStalls; }

std::map<std::string, double> map_counters(const std::map<std::string, double>& cupti) {
  std::map<std::string, double> out;
  auto rename = [&](const Rename& r) {
    if (auto v = get(cupti, r.cupti)) out[r.ours] = *v * r.scale;
  };
  for (const Rename& r : kCheap) rename(r);
  for (const Rename& r : kFull) rename(r);
  for (const std::string& s : kStalls)
    if (auto v = get(cupti, stall_metric(s))) out["stall_" + s] = *v;

  // Derived: each needs all its inputs and a non-zero denominator.
  if (auto t = get(cupti, "smsp__thread_inst_executed_per_inst_executed.ratio"))
    out["warp_execution_efficiency_pct"] = *t / 32.0 * 100.0;
  auto sectors = get(cupti, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  auto requests = get(cupti, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  if (sectors && requests && *requests > 0) out["global_sectors_per_request"] = *sectors / *requests;
  auto conflicts = get(cupti, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum");
  auto shared_ld = get(cupti, "smsp__inst_executed_op_shared_ld.sum");
  auto shared_st = get(cupti, "smsp__inst_executed_op_shared_st.sum");
  if (conflicts && shared_ld && shared_st && *shared_ld + *shared_st > 0)
    out["shared_bank_conflicts_per_request"] = *conflicts / (*shared_ld + *shared_st);
  // Floating-point operations executed, by precision (an FMA is two).
  auto ops = [&](const char* p) -> std::optional<double> {
    const std::string base = std::string("smsp__sass_thread_inst_executed_op_") + p;
    auto add = get(cupti, base + "add_pred_on.sum"), mul = get(cupti, base + "mul_pred_on.sum"),
         fma = get(cupti, base + "fma_pred_on.sum");
    if (!add || !mul || !fma) return std::nullopt;
    return *add + *mul + 2 * *fma;
  };
  for (const auto& [prefix, name] : {std::pair<const char*, const char*>{"f", "fp32_flops"}, {"h", "fp16_flops"},
                                     {"d", "fp64_flops"}})
    if (auto v = ops(prefix)) out[name] = *v;
  auto rd = get(cupti, "dram__bytes_read.sum");
  auto wr = get(cupti, "dram__bytes_write.sum");
  auto dur = get(cupti, "gpu__time_duration.sum");
  if (rd && wr && dur && *dur > 0) out["dram_bandwidth_gbs"] = (*rd + *wr) / *dur;  // bytes/ns = GB/s
  return out;
}

}  // namespace kernelblaster::profile
