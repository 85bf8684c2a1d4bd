#include "rewrite/lowering_prompt.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace kernelblaster::rewrite {
namespace {

std::string number(double v) {
  char buf[64];
  if (!std::isfinite(v)) return "n/a";
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string percent(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

const double* find(const std::map<std::string, double>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

const char* kSystem =
    "You optimize CUDA kernels. You are given a complete CUDA source file, its profile on a GPU, and one "
    "optimization technique to apply. Reply with the complete new source file in one ```cuda code block "
    "(prose before or after it is ignored).\n"
    "Rules, each checked before and after your code is compiled:\n"
    "- Keep the host launcher's name and signature exactly; the harness calls it and compares every output "
    "with the original's, on several sizes and fresh random inputs, with tolerances set by the element type.\n"
    "- Compute every output element on every call from the inputs of that call: no results cached across "
    "calls, no outputs left unwritten, inputs never modified.\n"
    "- All GPU work finishes before the launcher returns or is ordered on the default stream; nothing runs "
    "on a stream the launcher does not join.\n"
    "- No host calls outside the computation: no processes, files, network, environment variables, threads, "
    "dynamic loading, device resets or profiler control.\n"
    "- No header or library the original does not use (no cuBLAS, cuDNN, Thrust, CUB, cuRAND, torch or "
    "CUTLASS unless the original uses it), no timers (clock64, %globaltimer), no macros that build names "
    "with ##, no raw string literals.\n"
    "- Lower precision than the original's is a wrong result.";

const char* kUnitSystem =
    "You optimize CUDA kernels. You are given one kernel of a project, the code that launches it, its profile on "
    "a GPU, and one optimization technique to apply. Reply with the kernel's complete new definition in one "
    "```cuda code block (prose before or after it is ignored); __device__ helpers it needs may come before it "
    "in the same block.\n"
    "Rules, each checked before and after your code is compiled:\n"
    "- Keep the kernel's name, template parameters and parameter list exactly: the code that launches it stays as "
    "written, with the grid, block and shared memory it has now, and the project's other kernels stay as they "
    "are. Every output is compared with the original's, on several sizes and fresh random inputs, with "
    "tolerances set by the element type.\n"
    "- Compute every output element on every call from the inputs of that call: no results cached across "
    "calls, no outputs left unwritten, inputs never modified.\n"
    "- No host calls, no timers (clock64, %globaltimer), no macros that build names with ##, no raw string "
    "literals, no header or library the project does not use.\n"
    "- Lower precision than the original's is a wrong result.";

void section(std::string& out, const std::string& title, const std::string& body) {
  if (body.empty()) return;
  out += "## " + title + "\n" + body;
  if (out.back() != '\n') out += '\n';
  out += '\n';
}

std::string kb_record(const LoweringInput& in) {
  if (!in.stats) return "No measurements of this technique in this state on " + in.arch + " yet.\n";
  const kb::Stats& s = *in.stats;
  std::string out = std::to_string(s.tries) + " tries, " + std::to_string(s.successes) + " verified and faster";
  if (s.measured > 0) out += "; mean speedup " + number(s.mean) + "x over " + std::to_string(s.measured) + " measured";
  out += "; predicted " + number(s.predicted) + "x (confidence " + number(s.confidence) + ").\n";
  for (const std::string& n : s.notes) out += "- " + n + "\n";
  return out;
}

std::string cut(const std::string& s, std::size_t max) {
  return s.size() <= max ? s : s.substr(0, max) + "\n[... " + std::to_string(s.size() - max) + " more characters]";
}

}  // namespace

std::string speed_of_light(const std::map<std::string, double>& metrics, double median_us) {
  const double* bound = find(metrics, "roofline_bound_pct");
  if (!bound || *bound <= 0) return "";
  std::string out = "Speed of light: at this arithmetic intensity the GPU's measured roof allows at most " +
                    number(100.0 / *bound) + "x this kernel's speed (it runs at " + percent(*bound) + " of the roof)";
  // A call of several kernels: the bound is on this kernel's own time in
  // its profiled launch, not on the whole call's.
  const double* kernels = find(metrics, "kernels_per_run");
  const double* own = find(metrics, "duration_us");
  if (kernels && *kernels > 1 && own && *own > 0)
    out += "; the bound on its time in the profiled launch is " + number(*own * *bound / 100.0) + " us against " +
           number(*own) + " us (one of " + number(*kernels) + " kernels of the call)";
  else if (median_us > 0)
    out += "; the bound on one call's time is " + number(median_us * *bound / 100.0) + " us against " +
           number(median_us) + " us now";
  return out + (*bound >= 80 ? ". Little is left to gain: only what brings it closer to the roof pays.\n" : ".\n");
}

std::string profile_summary(const std::map<std::string, double>& metrics) {
  std::string out;
  const double* bw = find(metrics, "bandwidth_pct_of_peak");
  const double* fl = find(metrics, "flops_pct_of_peak");
  const double* ai = find(metrics, "arithmetic_intensity");
  if (bw || fl) {
    out += "Roofline: ";
    if (ai) out += "arithmetic intensity " + number(*ai) + " FLOP/byte; ";
    if (bw) out += "DRAM bandwidth at " + percent(*bw) + " of the measured peak";
    if (bw && fl) out += ", ";
    if (fl) out += "compute at " + percent(*fl) + " of the measured peak";
    out += ".\n";
  } else if (const double* dram = find(metrics, "dram_throughput_pct"), *sm = find(metrics, "sm_throughput_pct");
             dram || sm) {
    out += "Throughput: ";
    if (dram) out += "DRAM " + percent(*dram);
    if (dram && sm) out += ", ";
    if (sm) out += "SM " + percent(*sm);
    out += " of peak.\n";
  }
  if (!metrics.empty()) {
    out += "Metrics:";
    for (const auto& [name, value] : metrics) out += " " + name + "=" + number(value);
    out += "\n";
  }
  return out;
}

namespace {

std::string fenced(const std::string& code) {
  return "```cuda\n" + code + (code.empty() || code.back() == '\n' ? "" : "\n") + "```";
}

// The kernel, where it is, how it is launched and at which shapes.
void unit_sections(std::string& u, const LoweringInput& in) {
  const KernelDefinition& d = in.unit.definition;
  const std::string where = std::filesystem::path(d.file).filename().string() + ":" + std::to_string(d.line);
  section(u, "The kernel to rewrite: " + d.name + " (" + where + ")", fenced(in.definition));
  std::string launches;
  for (const std::string& f : in.unit.launchers) launches += fenced(f) + "\n";
  section(u, "How it is launched (stays as written)", launches);
  section(u, "The shapes it runs at (each a recorded call)", in.unit.shapes);
  u += "Apply the technique to this kernel and reply with its whole new definition.\n";
}

}  // namespace

llm::Request lowering_request(const LoweringInput& in) {
  llm::Request r;
  r.messages.push_back({llm::Role::system, in.unit.active() ? kUnitSystem : kSystem});
  std::string u;
  std::string target = in.gpu.empty() ? in.arch : in.gpu + " (" + in.arch + ")";
  section(u, "Kernel", in.kernel + " on " + target +
                           (in.base_median_us > 0 ? ", " + number(in.base_median_us) + " us per call now" : "") +
                           (in.launcher.empty() ? ".\n" : ".\nLauncher: " + in.launcher + "\n") + in.contract);
  std::string state = in.state.id.empty() ? "unclassified"
                                          : in.state.name + " (" + in.state.id + ")" +
                                                (in.state.signature.empty() ? "" : ": " + in.state.signature);
  section(u, "Performance state", state + "\n" + profile_summary(in.metrics) + speed_of_light(in.metrics, in.base_median_us));
  section(u, "Technique to apply: " + in.technique.name + " (" + in.technique.id + ")",
          in.technique.description + "\n" + in.technique.how_to);
  section(u, "What the knowledge base has seen", kb_record(in));
  std::string tried;
  for (const std::string& t : in.tried) tried += "- " + t + "\n";
  section(u, "Earlier steps of this trajectory", tried);
  if (in.unit.active()) {
    unit_sections(u, in);
  } else {
    section(u, "Source", fenced(in.source));
    u += "Apply the technique to this source and reply with the whole new file.\n";
  }
  r.messages.push_back({llm::Role::user, u});
  return r;
}

llm::Request fix_request(const LoweringInput& in, const FixInput& fix) {
  llm::Request r = lowering_request(in);
  r.messages.push_back({llm::Role::assistant, fenced(fix.code)});
  std::string u = "Attempt " + std::to_string(fix.attempt) + " failed: " + fix.failure + ".\n";
  if (!fix.detail.empty()) u += "```\n" + cut(fix.detail, kMaxFeedbackChars) + "\n```\n";
  u += in.unit.active() ? "Fix it, keeping the technique, and reply with the kernel's whole corrected definition.\n"
                        : "Fix it, keeping the technique, and reply with the whole corrected file.\n";
  r.messages.push_back({llm::Role::user, u});
  return r;
}

}  // namespace kernelblaster::rewrite
