#include "judge/result.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/text.h"

namespace kernelblaster {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OutputError, output, rel_l2, max_abs, worst_excess, mismatched,
                                   nonfinite_mismatch, unwritten, first_bad)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunCheck, run, size, seed, timed_call, passed, errors, oracle_errors,
                                   inputs_modified)

void to_json(nlohmann::json& j, const OutputCalibration& c) {
  j["output"] = c.output;
  j["has_oracle"] = c.has_oracle;
  j["original_vs_oracle_rel_l2"] = c.oracle_rel_l2;
  j["original_spread_rel_l2"] = c.spread_rel_l2;
  j["allowed_vs_original"] = {{"rel_l2", c.vs_original.rel_l2}, {"atol", c.vs_original.atol},
                              {"rtol", c.vs_original.rtol}, {"slack_factor", c.slack_factor}};
  if (c.has_oracle)
    j["allowed_vs_oracle"] = {{"rel_l2", c.vs_oracle.rel_l2}, {"atol", c.vs_oracle.atol},
                              {"rtol", c.vs_oracle.rtol}, {"slack_factor", c.slack_factor}};
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelProfile, name, metrics)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelSpeed, name, median_us, reference_median_us, speedup, optimistic_speedup,
                                   slower)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SizeTiming, size, validation_only, method, runs, median_us, q1_us, q3_us, min_us, event_median_us,
                                   kernels_per_run, issue_us, reference_issue_us, repeat_median_us, sm_clock_mhz, reference_median_us, speedup,
                                   busy_median_us, reference_busy_median_us,
                                   basis, cost_us, reference_cost_us, cost_q1_us, cost_q3_us,
                                   charged_idle_us, kernels)

void SandboxRecord::add(bool isolated, std::uint64_t limit, std::uint64_t peak, int strays) {
  network_isolated = (processes == 0 || network_isolated) && isolated;
  memory_limit_bytes = std::max(memory_limit_bytes, limit);
  peak_resident_bytes = std::max(peak_resident_bytes, peak);
  strays_killed += strays;
  ++processes;
}

void SandboxRecord::add_candidate(bool hidden) {
  original_hidden = (candidate_processes == 0 || original_hidden) && hidden;
  ++candidate_processes;
}

void SandboxRecord::add(const SandboxRecord& other) {
  if (other.candidate_processes > 0) {
    original_hidden = (candidate_processes == 0 || original_hidden) && other.original_hidden;
    candidate_processes += other.candidate_processes;
  }
  if (other.processes == 0) return;
  network_isolated = (processes == 0 || network_isolated) && other.network_isolated;
  memory_limit_bytes = std::max(memory_limit_bytes, other.memory_limit_bytes);
  peak_resident_bytes = std::max(peak_resident_bytes, other.peak_resident_bytes);
  strays_killed += other.strays_killed;
  processes += other.processes;
}

std::string result_to_json(const EvalResult& r) {
  nlohmann::json j = {
      {"status", status_name(r.status)}, {"accepted", r.status == Status::ok}, {"detail", r.detail},
      {"speedup", r.speedup},            {"reverified", r.reverified},         {"device", r.device},
      {"slower_kernel", r.slower_kernel}, {"slower_at_a_size", r.slower_at_a_size}, {"other_sizes", r.other_sizes},
      {"launch_paced", r.launch_paced},
      {"timing", r.timing},              {"checks", r.checks},                 {"calibration", r.calibration},
      {"notes", r.notes},                {"eval_seconds", r.eval_seconds},     {"compile_seconds", r.compile_seconds},
      {"prepare_seconds", r.prepare_seconds}, {"wall_seconds", r.wall_seconds}};
  j["phase_seconds"] = nlohmann::json::array();
  for (const auto& [phase, seconds] : r.phase_seconds)
    j["phase_seconds"].push_back({{"phase", phase}, {"seconds", seconds}});
  if (!r.process_phase_seconds.empty()) {
    j["process_phase_seconds"] = nlohmann::json::array();
    for (const auto& [phase, seconds] : r.process_phase_seconds)
      j["process_phase_seconds"].push_back({{"phase", phase}, {"seconds", seconds}});
  }
  if (!r.memcheck.empty()) j["memcheck"] = r.memcheck;
  j["profile"] = r.profile;
  j["profile_note"] = r.profile_note;
  j["profile_seconds"] = r.profile_seconds;
  if (!r.plausibility.line.empty())
    j["plausibility"] = {{"assessed", r.plausibility.assessed},
                         {"size", r.plausibility.size},
                         {"input_bytes", r.plausibility.input_bytes},
                         {"flops", r.plausibility.flops},
                         {"cost_us", r.plausibility.cost_us},
                         {"bandwidth_gbs", r.plausibility.bandwidth_gbs},
                         {"bandwidth_ceiling_gbs", r.plausibility.bandwidth_ceiling_gbs},
                         {"bandwidth_ratio", r.plausibility.bandwidth_ratio},
                         {"gflops", r.plausibility.gflops},
                         {"compute_ceiling_gflops", r.plausibility.compute_ceiling_gflops},
                         {"compute_ratio", r.plausibility.compute_ratio},
                         {"implausible", r.plausibility.implausible},
                         {"line", r.plausibility.line}};
  if (r.sandbox.processes > 0)
    j["sandbox"] = {{"processes", r.sandbox.processes},
                    {"network_isolated", r.sandbox.network_isolated},
                    {"original_hidden", r.sandbox.original_hidden},
                    {"memory_limit_bytes", r.sandbox.memory_limit_bytes},
                    {"peak_resident_bytes", r.sandbox.peak_resident_bytes},
                    {"strays_killed", r.sandbox.strays_killed}};
  return j.dump(2);
}

std::string result_to_text(const EvalResult& r) {
  std::string out = std::string("status: ") + status_name(r.status);
  if (!r.detail.empty()) out += " (" + r.detail + ")";
  out += "\n";
  int passed = 0;
  for (const RunCheck& c : r.checks) passed += c.passed;
  if (!r.checks.empty())
    out += "correctness: " + std::to_string(passed) + "/" + std::to_string(r.checks.size()) + " runs within tolerance\n";
  char line[256];
  for (const OutputCalibration& c : r.calibration) {
    if (!c.has_oracle) continue;
    std::snprintf(line, sizeof line,
                  "oracle: '%s' of the original is %.3g from it (rel L2); the candidate may be %.3g from it\n",
                  c.output.c_str(), c.oracle_rel_l2, c.vs_oracle.rel_l2);
    out += line;
  }
  for (const SizeTiming& t : r.timing) {
    std::snprintf(line, sizeof line, "%-12s %10.2f us (IQR %.2f us, %d runs, %s) vs reference %10.2f us", t.size.c_str(),
                  t.median_us, t.q3_us - t.q1_us, t.runs, t.method.c_str(), t.reference_median_us);
    out += line;
    if (t.basis == "busy") {
      std::snprintf(line, sizeof line, "; GPU busy %.2f us vs %.2f us", t.busy_median_us, t.reference_busy_median_us);
      out += line;
      if (t.charged_idle_us > 0) {
        std::snprintf(line, sizeof line, " + %.2f us idle charged", t.charged_idle_us);
        out += line;
      }
    }
    std::snprintf(line, sizeof line, ": %.3fx%s\n", t.speedup, t.validation_only ? " (a validation size: not in the speedup)" : "");
    out += line;
    if (t.kernels.size() > 1)
      for (const KernelSpeed& k : t.kernels) {
        std::snprintf(line, sizeof line, "  %-30s %10.2f us vs %10.2f us: %.3fx%s\n", k.name.c_str(), k.median_us,
                      k.reference_median_us, k.speedup, k.slower ? " (slower)" : "");
        out += line;
      }
  }
  if (!r.slower_kernel.empty()) out += "a kernel is slower: " + r.slower_kernel + " (the tuner keeps no such candidate)\n";
  if (!r.slower_at_a_size.empty()) out += "slower at one size: " + r.slower_at_a_size + "\n";
  if (!r.other_sizes.empty()) out += "at the validation sizes (not in the speedup): " + r.other_sizes + "\n";
  if (!r.launch_paced.empty()) out += "paced by its launches: " + r.launch_paced + "\n";
  if (r.speedup > 0) {
    std::snprintf(line, sizeof line, "speedup: %.3fx%s\n", r.speedup, r.reverified ? " (re-verified)" : "");
    out += line;
  }
  if (!r.profile.empty()) {
    // The dominant kernel, in a few numbers; --json has everything.
    const KernelProfile& k = r.profile.front();
    out += "profile: " + k.name + "\n";
    std::string line_out;
    for (const char* key : {"duration_us", "dram_throughput_pct", "achieved_occupancy_pct", "theoretical_occupancy_pct",
                            "l2_hit_rate_pct", "ipc", "registers_per_thread", "bandwidth_pct_of_peak",
                            "flops_pct_of_peak"}) {
      auto it = k.metrics.find(key);
      if (it == k.metrics.end()) continue;
      std::snprintf(line, sizeof line, "%s%s %.4g", line_out.empty() ? "  " : ", ", key, it->second);
      line_out += line;
    }
    if (!line_out.empty()) out += line_out + "\n";
  }
  if (!r.plausibility.line.empty())
    out += std::string(r.plausibility.implausible ? "WARNING plausibility: " : "plausibility: ") + r.plausibility.line +
           "\n";
  if (!r.profile_note.empty()) out += "profile note: " + r.profile_note + "\n";
  if (!r.memcheck.empty()) out += "memcheck: " + r.memcheck + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  if (r.sandbox.processes > 0) {
    out += std::string("sandbox: ") + (r.sandbox.network_isolated ? "no network" : "network allowed") + ", at most " +
           bytes_text(r.sandbox.peak_resident_bytes) + " resident";
    if (r.sandbox.memory_limit_bytes > 0) out += " (limit " + bytes_text(r.sandbox.memory_limit_bytes) + ")";
    if (r.sandbox.strays_killed > 0) out += ", " + std::to_string(r.sandbox.strays_killed) + " escaped processes killed";
    if (r.sandbox.candidate_processes > 0)
      out += r.sandbox.original_hidden ? ", the original's outputs hidden from the candidate"
                                       : ", the original's outputs not hidden from the candidate "
                                         "(KERNELBLASTER_SANDBOX_VIEW off, or no user namespaces here)";
    out += "\n";
  }
  if (!r.device.empty()) out += "device: " + r.device + "\n";
  return out;
}

}  // namespace kernelblaster
