// `kernelblaster gate`: the CTest gates kernelblaster_optimize() registers
// per tuned source. The tuned source (with the flags of its options file) is
// judged against the original by the measurement engine.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cache/speed_gate.h"
#include "cache/tuned_result.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "eval/evaluator.h"
#include "eval/gpu_probe.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster gate --source ORIGINAL.cu --tuned TUNED.cu --harness H --check correctness|speed [options]

  --check correctness   the tuned source passes the engine's checks against the
                        original (every size, fresh seeds, poisoned outputs, ...)
  --check speed         its median speedup is at least --min-speedup. When the
                        median misses but the IQR reaches the threshold, it is
                        measured once more and both runs decide together.
  --manifest FILE       the target's compile settings
  --rsp FILE            nvcc options file with the tuned source's own flags
  --min-speedup X       threshold for --check speed (default 1.0)
  --json                print the verdict as JSON
  --synthesized         H is the harness the build synthesizes from recorded
                        calls: while it does not exist yet, skip (exit 77)

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

int gate_command(const CommandArgs& argv, const std::string& self_exe) {
  for (const std::string& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
  EvalRequest req;
  std::string tuned, check, rsp;
  double min_speedup = 1.0;
  bool json = false;
  try {
    Args args(argv, {"--source", "--tuned", "--harness", "--manifest", "--check", "--rsp", "--min-speedup"},
              {"--json", "--synthesized"});
    req.source = args.value("--source");
    tuned = args.value("--tuned");
    req.harness = args.value("--harness");
    check = args.value("--check");
    rsp = args.value("--rsp");
    min_speedup = args.number("--min-speedup", 1.0);
    json = args.flag("--json");
    if (req.source.empty() || tuned.empty() || req.harness.empty())
      throw UsageError("--source, --tuned and --harness are required");
    if (check != "correctness" && check != "speed") throw UsageError("--check must be correctness or speed");
    // A harness the build synthesizes from recorded calls: none yet is no failure.
    if (args.flag("--synthesized") && !fs::exists(req.harness)) {
      std::printf("kernelblaster gate: %s: skipped: no harness yet (the build synthesizes one once the project's "
                  "runs have recorded calls, then tunes)\n", fs::path(req.source).filename().string().c_str());
      return 77;
    }
    if (!args.value("--manifest").empty()) req.compile = settings_from_manifest(args.value("--manifest"));
    if (!fs::exists(tuned)) throw UsageError("no tuned source " + tuned + " (build the target first)");
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster gate: %s (see --help)\n", x.what());
    return 2;
  }
  const std::string name = fs::path(req.source).filename().string();
  std::vector<std::string> flags;
  bool untuned = false;
  try {
    flags = read_rsp(rsp);
    std::string original_text = read_file(req.source);
    untuned = flags.empty() && read_file(tuned) == cache::render_original(fs::absolute(req.source).lexically_normal().string(), original_text);
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster gate: %s\n", x.what());
    return 2;
  }
  if (check == "speed" && untuned) {
    std::printf("kernelblaster gate: %s: no tuned result in use; nothing to gate\n", name.c_str());
    return 77;
  }
  req.candidate = tuned;
  req.timing = check == "speed";
  req.lock_dir = default_lock_dir();

  CudaGpuProbe probe;
  GpuInfo gpu = probe.probe(0);
  if (!gpu.present) {
    if (std::string node = nvidia_device_node(); !node.empty()) {
      std::printf("kernelblaster gate: %s: %s is here but %s\n", name.c_str(), node.c_str(), gpu.reason.c_str());
      return 1;
    }
    std::printf("kernelblaster gate: %s: skipped: %s\n", name.c_str(), gpu.reason.c_str());
    return 77;
  }
  Toolchain tc = find_toolchain(self_exe);
  std::string work;
  try {
    work = make_work_dir("kernelblaster-gate");
    if (!flags.empty()) {
      // The tuned source's own flags apply to it alone, as in the build.
      CompileSettings cs = req.compile;
      if (cs.arch.empty()) cs.arch = gpu.arch;
      cs.flags.insert(cs.flags.end(), flags.begin(), flags.end());
      BuildOutcome b = build_harness(tc, cs, req.harness, tuned, (fs::path(work) / "tuned").string(), req.build_timeout_s);
      if (!b.ok) {
        std::printf("kernelblaster gate: %s: FAIL: %s%s\n", name.c_str(),
                    b.nvcc_unusable ? "" : "the tuned source does not compile: ", b.first_error.c_str());
        fs::remove_all(work);
        return 1;
      }
      req.candidate_binary = b.binary;
    }
    auto evaluate = [&] {
      EvalRequest r = req;
      r.work_dir = (fs::path(work) / ("eval" + std::to_string(std::rand()))).string();
      return Evaluator(tc, probe).evaluate(r);
    };
    EvalResult first = evaluate();
    auto samples = [](const EvalResult& r) {
      std::vector<cache::SizeSample> s;
      // The costs the speedup divides, with their own spread.
      for (const auto& t : r.timing) s.push_back({t.reference_cost_us, t.cost_us, t.cost_q1_us, t.cost_q3_us});
      return s;
    };
    int code = 0;
    std::string verdict;
    nlohmann::json out = {{"source", req.source}, {"check", check}, {"device", first.device}, {"status", status_name(first.status)}};
    if (first.status == Status::no_gpu) {
      const std::string node = nvidia_device_node();  // a device is here: CUDA failing is no skip
      const bool broken = !node.empty();
      verdict = (broken ? "FAIL: " + node + " is here but " : "skipped: ") + first.detail;
      code = broken ? 1 : 77;
    } else if (first.status != Status::ok) {
      verdict = std::string("FAIL: ") + status_name(first.status) + ": " + first.detail;
      code = 1;
    } else if (check == "correctness") {
      verdict = untuned ? "PASS (no tuned result in use: the original judged against itself)" : "PASS";
    } else {
      cache::SpeedJudgement j = cache::judge_speed(samples(first), min_speedup);
      out["first_speedup"] = j.speedup;
      if (j.verdict == cache::GateVerdict::remeasure) {
        EvalResult second = evaluate();
        if (second.status != Status::ok) {
          j.verdict = cache::GateVerdict::fail;
          verdict = std::string("FAIL: re-measurement: ") + status_name(second.status) + ": " + second.detail;
        } else {
          j = cache::judge_combined(j, cache::judge_speed(samples(second), min_speedup), min_speedup);
          out["remeasured"] = true;
        }
      }
      char buf[160];
      std::snprintf(buf, sizeof buf, "%.3fx (IQR %.3f-%.3fx) against the threshold %.3fx", j.speedup, j.low, j.high, min_speedup);
      if (verdict.empty()) verdict = std::string(j.verdict == cache::GateVerdict::pass ? "PASS: " : "FAIL: ") + buf;
      out["speedup"] = j.speedup;
      code = j.verdict == cache::GateVerdict::pass ? 0 : 1;
    }
    out["verdict"] = verdict;
    if (json) std::printf("%s\n", out.dump(2).c_str());
    else std::printf("kernelblaster gate: %s: %s: %s\n", name.c_str(), check.c_str(), verdict.c_str());
    fs::remove_all(work);
    return code;
  } catch (const std::exception& x) {
    if (!work.empty()) fs::remove_all(work);
    std::fprintf(stderr, "kernelblaster gate: %s\n", x.what());
    return 2;
  }
}

}  // namespace kernelblaster
