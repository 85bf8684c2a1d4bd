// `kernelblaster gate`: the CTest gates kernelblaster_optimize() registers
// per tuned source. The tuned source (with the flags of its options file) is
// judged against the original by the measurement engine.

#include <cstdio>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "build_step/build_record.h"
#include "build_step/speed_gate.h"
#include "build_step/tuned_result.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/ctest_resources.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "judge/evaluator.h"
#include "judge/gpu_probe.h"
#include "report/report.h"
#include "tuner/replay_shapes.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster gate --source ORIGINAL.cu --tuned TUNED.cu --harness H --check correctness|speed [options]

  --check correctness   the tuned source passes the engine's checks against the
                        original (every size, fresh seeds, poisoned outputs, ...)
  --check speed         its median speedup is at least --min-speedup. When the
                        median misses but the speedup at the tuned source's
                        first-quartile time reaches the threshold, it is
                        measured once more and both runs decide together.
  --manifest FILE       the target's compile settings
  --rsp FILE            nvcc options file with the tuned source's own flags
  --min-speedup X       threshold for --check speed (default 1.0)
  --json                print the verdict as JSON
  --synthesized         H is the harness the build synthesizes from recorded
                        calls: while it does not exist yet, skip (exit 77)
  --record FILE         keep the verdict there as JSON, with the hash of the
                        tuned source it judged (the build's report reads it;
                        kernelblaster_optimize() passes <tuned>.gate-CHECK.json)
  --refresh-report DIR  then refresh the build tree DIR's report
                        (kernelblaster_report.html); silent, never fails

When no tuned result is in use (the compiled source is the original), the
correctness gate judges the original against itself and the speed gate
skips (exit 77): there is nothing to gate.

Exit status: 0 pass, 1 fail, 2 bad usage, 77 no GPU (or nothing to gate).
)";

std::vector<std::string> read_rsp(const std::string& path) {
  std::vector<std::string> flags;
  if (path.empty() || !fs::exists(path)) return flags;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (line.size() >= 2 && line.front() == '"' && line.back() == '"') line = line.substr(1, line.size() - 2);
    if (!line.empty()) flags.push_back(line);
  }
  return flags;
}

}  // namespace

namespace {

// What the command line asks for.
struct GateCall {
  EvalRequest req;
  std::string tuned, check, rsp, record, report_tree;
  std::vector<std::string> definitions;  // the tuned values a reshaped harness reads (follow_tuned_shapes)
  double min_speedup = 1.0;
  bool json = false, synthesized = false;
};

GateCall parse_call(const CommandArgs& argv) {
  GateCall c;
  Args args(argv, {"--source", "--tuned", "--harness", "--manifest", "--check", "--rsp", "--min-speedup", "--record",
             "--refresh-report"},
            {"--json", "--synthesized"});
  c.record = args.value("--record");
  c.report_tree = args.value("--refresh-report");
  c.req.source = args.value("--source");
  c.tuned = args.value("--tuned");
  c.req.harness = args.value("--harness");
  c.check = args.value("--check");
  c.rsp = args.value("--rsp");
  c.min_speedup = args.number("--min-speedup", 1.0);
  c.json = args.flag("--json");
  c.synthesized = args.flag("--synthesized");
  if (c.req.source.empty() || c.tuned.empty() || c.req.harness.empty())
    throw UsageError("--source, --tuned and --harness are required");
  if (c.check != "correctness" && c.check != "speed") throw UsageError("--check must be correctness or speed");
  // A synthesized harness not written yet is checked by the caller first.
  if (c.synthesized && !fs::exists(c.req.harness)) return c;
  if (!args.value("--manifest").empty()) c.req.compile = settings_from_manifest(args.value("--manifest"));
  if (!fs::exists(c.tuned)) throw UsageError("no tuned source " + c.tuned + " (build the target first)");
  return c;
}

// The tuned program built with its own flags (they apply to it alone, as in
// the build); an empty `why` on success.
std::string build_tuned(const Toolchain& tc, const GateCall& c, const GpuInfo& gpu, const std::vector<std::string>& flags,
                        const std::string& work, std::string* binary) {
  CompileSettings cs = c.req.compile;
  if (cs.arch.empty()) cs.arch = gpu.arch;
  cs.flags.insert(cs.flags.end(), flags.begin(), flags.end());
  cs.definitions.insert(cs.definitions.end(), c.definitions.begin(), c.definitions.end());
  BuildOutcome b = build_harness(tc, cs, c.req.harness, c.tuned, (fs::path(work) / "tuned").string(), c.req.build_timeout_s);
  if (b.ok) {
    *binary = b.binary;
    return "";
  }
  return (b.nvcc_unusable ? "" : "the tuned source does not compile: ") + b.first_error;
}

std::vector<build_step::SizeSample> samples(const EvalResult& r) {
  std::vector<build_step::SizeSample> s;
  // The costs the speedup divides, with their own spread.
  for (const auto& t : r.timing) s.push_back({t.reference_cost_us, t.cost_us, t.cost_q1_us, t.cost_q3_us});
  return s;
}

struct GateOutcome {
  int code = 0;
  std::string verdict;  // what the line says after the source's name (and the check, when judged)
  bool judged = false;  // the engine judged the tuned source (not a skip before it)
};

// The speed gate on a verified first evaluation: its median against the
// threshold, measured once more when only the first quartile reaches it.
GateOutcome judge_speed_gate(const EvalResult& first, const std::function<EvalResult()>& evaluate, double min_speedup,
                             nlohmann::json& out) {
  GateOutcome g;
  build_step::SpeedJudgement j = build_step::judge_speed(samples(first), min_speedup);
  out["first_speedup"] = j.speedup;
  if (j.verdict == build_step::GateVerdict::remeasure) {
    EvalResult second = evaluate();
    if (second.status != Status::ok) {
      j.verdict = build_step::GateVerdict::fail;
      g.verdict = std::string("FAIL: re-measurement: ") + status_name(second.status) + ": " + second.detail;
    } else {
      j = build_step::judge_combined(j, build_step::judge_speed(samples(second), min_speedup), min_speedup);
      out["remeasured"] = true;
    }
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3fx (IQR %.3f-%.3fx) against the threshold %.3fx", j.speedup, j.low, j.high, min_speedup);
  if (g.verdict.empty()) g.verdict = std::string(j.verdict == build_step::GateVerdict::pass ? "PASS: " : "FAIL: ") + buf;
  out["speedup"] = j.speedup;
  g.code = j.verdict == build_step::GateVerdict::pass ? 0 : 1;
  return g;
}

// The verdict on the first evaluation (and, for speed, a second one).
GateOutcome judge_gate(const GateCall& c, bool untuned, const EvalResult& first,
                       const std::function<EvalResult()>& evaluate, nlohmann::json& out) {
  if (first.status == Status::no_gpu) {
    const std::string node = nvidia_device_node();  // a device is here: CUDA failing is no skip
    const bool broken = !node.empty();
    return {broken ? 1 : 77, (broken ? "FAIL: " + node + " is here but " : "skipped: ") + first.detail};
  }
  if (first.status != Status::ok) return {1, std::string("FAIL: ") + status_name(first.status) + ": " + first.detail};
  if (c.check == "correctness")
    return {0, untuned ? "PASS (no tuned result in use: the original judged against itself)" : "PASS"};
  return judge_speed_gate(first, evaluate, c.min_speedup, out);
}

// The gate once the call is read and a GPU is here: build, evaluate, judge.
// `out` gets the JSON form of the verdict.
GateOutcome run_gate(GateCall c, const std::vector<std::string>& flags, bool untuned, const Toolchain& tc,
                     GpuProbe& probe, const GpuInfo& gpu, const std::string& work, nlohmann::json& out) {
  if (!flags.empty() || !c.definitions.empty()) {
    std::string binary;
    if (std::string why = build_tuned(tc, c, gpu, flags, work, &binary); !why.empty()) return {1, "FAIL: " + why, false};
    c.req.candidate_binary = binary;
  }
  auto evaluate = [&] {
    EvalRequest r = c.req;
    r.work_dir = (fs::path(work) / ("eval" + std::to_string(std::rand()))).string();
    return Evaluator(tc, probe).evaluate(r);
  };
  EvalResult first = evaluate();
  out = {{"source", c.req.source}, {"check", c.check}, {"device", first.device}, {"status", status_name(first.status)}};
  GateOutcome g = judge_gate(c, untuned, first, evaluate, out);
  out["verdict"] = g.verdict;
  g.judged = true;
  return g;
}

// A harness that replays recorded launches runs the tuned source with the
// shapes its values give, as the tuner's did (tuner/replay_shapes.h): the
// reshaped copy in the work directory, the values as -D for the tuned build.
void follow_tuned_shapes(GateCall& c, const std::string& work) {
  if (!replays_recorded_launches(c.req.harness)) return;
  const tuner::TunedShapes t =
      tuner::shapes_for_tuned(read_file(c.req.harness), read_file(c.req.source), c.req.source, read_file(c.tuned),
                               c.req.compile.include_dirs);
  if (t.harness.empty()) return;
  c.req.harness = (fs::path(work) / fs::path(c.req.harness).filename()).string();
  write_file(c.req.harness, t.harness);
  c.definitions = t.definitions;
}

// The tuned source's flags, and whether it is the original as the build
// renders it (no tuned result in use). Throws when a file cannot be read.
bool read_tuned(GateCall& c, std::vector<std::string>* flags) {
  *flags = read_rsp(c.rsp);
  const std::string original_text = read_file(c.req.source);
  return flags->empty() &&
         read_file(c.tuned) == build_step::render_original(fs::absolute(c.req.source).lexically_normal().string(), original_text);
}

// Every verdict once the call is read: skips, failures to build and the judged ones.
GateOutcome decide(GateCall& c, const std::string& self_exe, nlohmann::json& out) {
  // A harness the build synthesizes from recorded calls: none yet is no failure.
  if (c.synthesized && !fs::exists(c.req.harness))
    return {77, "skipped: no harness yet (the build synthesizes one once the project's runs have recorded calls, then tunes)", false};
  std::vector<std::string> flags;
  const bool untuned = read_tuned(c, &flags);
  if (c.check == "speed" && untuned) return {77, "no tuned result in use; nothing to gate", false};
  c.req.candidate = c.tuned;
  c.req.timing = c.check == "speed";
  c.req.lock_dir = default_lock_dir();

  // The GPU CTest allocated to this gate (ctest --resource-spec-file: one
  // gate per GPU at once), else the first.
  c.req.device = ctest_allocated_gpu([](const char* n) { return std::getenv(n); }).value_or(0);
  CudaGpuProbe probe;
  GpuInfo gpu = probe.probe(c.req.device);
  if (!gpu.present) {
    if (std::string node = nvidia_device_node(); !node.empty()) return {1, node + " is here but " + gpu.reason, false};
    return {77, "skipped: " + gpu.reason, false};
  }
  Toolchain tc = find_toolchain(self_exe);
  const WorkDir work("kernelblaster-gate");
  if (!untuned) follow_tuned_shapes(c, work.path());
  return run_gate(c, flags, untuned, tc, probe, gpu, work.path(), out);
}

// The verdict kept for the build's report, with the hash of what was judged.
// Best effort: a gate never fails because its record cannot be written.
void keep_record(const GateCall& c, const GateOutcome& g, const nlohmann::json& out) {
  if (c.record.empty()) return;
  build_step::GateRecord r;
  r.check = c.check;
  r.exit_code = g.code;
  r.verdict = g.verdict;
  if (out.is_object()) {  // judged: the engine's numbers
    r.speedup = out.value("speedup", 0.0);
    r.device = out.value("device", "");
  }
  r.judged_at = utc_now_iso8601();
  std::string text;
  if (read_file_if_present(c.tuned, &text)) r.judged_sha256 = sha256_hex(text);
  try {
    write_file_atomic(c.record, build_step::gate_record_text(r));
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster gate: the verdict is not recorded: %s\n", x.what());
    return;
  }
  std::string why;
  if (!c.report_tree.empty()) report::refresh_report(c.report_tree, &why);  // the page says what it could not read
}

}  // namespace

int gate_command(const CommandArgs& argv, const std::string& self_exe) {
  return run_command("gate", kHelp, argv, [&] {
    GateCall c = parse_call(argv);
    const std::string name = fs::path(c.req.source).filename().string();
    nlohmann::json out;
    GateOutcome g;
    try {
      g = decide(c, self_exe, out);
    } catch (const std::exception& x) {
      keep_record(c, {2, std::string("could not run: ") + x.what(), false}, out);
      throw;
    }
    keep_record(c, g, out);
    if (c.json && g.judged) std::printf("%s\n", out.dump(2).c_str());
    else if (g.judged) std::printf("kernelblaster gate: %s: %s: %s\n", name.c_str(), c.check.c_str(), g.verdict.c_str());
    else std::printf("kernelblaster gate: %s: %s\n", name.c_str(), g.verdict.c_str());
    return g.code;
  });
}

}  // namespace kernelblaster
