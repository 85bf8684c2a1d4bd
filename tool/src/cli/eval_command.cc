#include "cli/commands.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cli/args.h"
#include "common/file_util.h"
#include "judge/candidate_build.h"
#include "judge/evaluator.h"
#include "judge/gpu_probe.h"
#include "judge/memcheck.h"
#include "judge/plan_builder.h"
#include "kernelbench/evaluate.h"
#include "tuner/replay_shapes.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster eval --source ORIGINAL.cu --harness HARNESS.cu [--candidate CANDIDATE.cu] [options]
       kernelblaster eval --kernelbench PROBLEM_DIR [--candidate CANDIDATE.cu] [options]

Builds the harness against the original source (the reference) and against the
candidate, runs each in its own process on the same fresh seeds, and reports
whether the candidate is correct and how much faster it is. Without
--candidate, the original is judged against itself. With a harness that
replays recorded launches and a source `kernelblaster tune` wrote, the
candidate's launches take the grid and block its values give, as in tune
and the gates. Each kernel of the call is compared with the original's too.

  --kernelbench DIR     a KernelBench-CUDA problem (init.cu + libtorch driver.cpp);
                        libtorch from --torch-prefix, KERNELBLASTER_TORCH_PREFIX
                        or python3's torch
  --arch sm_XY          GPU architecture (default: the GPU's own)
  -I DIR, -D NAME[=V]   include directories and definitions for nvcc
  --nvcc-flag FLAG      an extra nvcc flag (repeatable)
  --manifest FILE       compile settings as JSON: arch, include_dirs, definitions, flags
  --seeds N             fresh seeds per size (default 3, at least 3)
  --input-seed S        fixed first input seed instead of fresh random ones
  --budget-ms MS        timed runs per size (default 300)
  --no-timing           correctness only
  --every-size          check every size the harness declares, its validation
                        sizes too, and time each one (what tune's winner's
                        second look does)
  --back-to-back        time again as a program's loop does: each timed run
                        calls the launcher up to 100 times in a row, the L2
                        warm; the lower speedup of the two timings is the
                        result (native harnesses; what tune's winner passes)
  --memcheck            once accepted, run the candidate's program again under
                        compute-sanitizer's memcheck (next to nvcc, on PATH,
                        or KERNELBLASTER_COMPUTE_SANITIZER): an invalid access
                        is out_of_bounds (native harnesses; what tune's winner
                        passes)
  --timeout S           per harness process, from when it holds the GPU
                        (default 60; 180 with --kernelbench)
  --max-speedup X       re-verify speedups above X (default 20)
  --device N            CUDA device (default 0)
  --work-dir DIR        keep scratch builds and dumps here
  --keep                keep the temporary work directory
  --profile[=cheap|full]  profile an accepted candidate after timing, in a
                        process of its own: cheap (default) is one replay pass,
                        full the whole metric set; metrics as in
                        tool/src/profile/METRICS.md (--json: "profile")
  --json                print the result as JSON

Exit status: 0 accepted, 1 rejected, 2 bad usage, 77 no GPU on this machine.
)";

EvalResult evaluate_kernelbench_problem(const EvalRequest& req, const std::string& dir, const std::string& torch_prefix,
                                       const Toolchain& tc, GpuProbe& probe) {
  GpuInfo gpu = probe.probe(req.device);
  EvalResult result;
  if (!gpu.present) {
    result.status = Status::no_gpu;
    result.detail = gpu.reason;
    return result;
  }
  kernelbench::KernelBenchRequest kb;
  kb.problem_dir = dir;
  kb.candidate_path = req.candidate;
  kb.arch = req.compile.arch.empty() ? gpu.arch : req.compile.arch;
  kb.extra_nvcc_flags = req.compile.flags;
  kb.torch_prefix = torch_prefix;
  kb.run = req;
  kb.work_dir = req.work_dir.empty() ? make_work_dir("kernelblaster-kb") : req.work_dir;
  result = kernelbench::evaluate_kernelbench(kb, tc, probe);
  result.device = gpu.name;
  if (req.work_dir.empty() && !req.keep_work_dir) std::filesystem::remove_all(kb.work_dir);
  else if (req.work_dir.empty()) result.notes.push_back("work directory: " + kb.work_dir);
  return result;
}

}  // namespace

namespace {

// What the command line asks for.
struct EvalCall {
  EvalRequest req;
  bool json = false;
  std::string kernelbench_dir, torch_prefix;
};

// --profile alone means cheap; --profile=full / --profile full pick the set.
CommandArgs with_profile_values(const CommandArgs& argv) {
  CommandArgs out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] != "--profile") {
      out.push_back(argv[i]);
      continue;
    }
    bool named = i + 1 < argv.size() && (argv[i + 1] == "cheap" || argv[i + 1] == "full" || argv[i + 1] == "none");
    out.push_back("--profile=" + (named ? argv[++i] : std::string("cheap")));
  }
  return out;
}

EvalCall parse_call(const CommandArgs& argv) {
  EvalCall c;
  EvalRequest& req = c.req;
  refuse_renamed(argv, {{"--seed", "now --input-seed (--seed is the policy's seed in every command)"}});
  Args args(with_profile_values(argv),
            {"--profile", "--source", "--harness", "--candidate", "--kernelbench", "--torch-prefix", "--arch", "-I", "-D", "--nvcc-flag", "--manifest", "--seeds",
             "--input-seed", "--budget-ms", "--timeout", "--max-speedup", "--device", "--work-dir"},
            {"--json", "--keep", "--no-timing", "--every-size", "--back-to-back", "--memcheck"});
  c.json = args.flag("--json");
  req.source = args.value("--source");
  req.harness = args.value("--harness");
  req.candidate = args.value("--candidate");
  c.kernelbench_dir = args.value("--kernelbench");
  c.torch_prefix = args.value("--torch-prefix");
  if (c.kernelbench_dir.empty() && req.source.empty()) throw UsageError("--source (or --kernelbench) is required");
  if (c.kernelbench_dir.empty() && req.harness.empty()) throw UsageError("--harness is required");
  if (!c.kernelbench_dir.empty() && (!req.source.empty() || !req.harness.empty()))
    throw UsageError("--kernelbench takes the place of --source and --harness");
  if (!args.value("--manifest").empty()) req.compile = settings_from_manifest(args.value("--manifest"));
  if (!args.value("--arch").empty()) req.compile.arch = args.value("--arch");
  for (const auto& v : args.values("-I")) req.compile.include_dirs.push_back(v);
  for (const auto& v : args.values("-D")) req.compile.definitions.push_back(v);
  for (const auto& v : args.values("--nvcc-flag")) req.compile.flags.push_back(v);
  req.seeds = static_cast<int>(args.number("--seeds", 3));
  req.seed_base = static_cast<std::uint64_t>(args.number("--input-seed", 0));
  req.budget_ms = args.number("--budget-ms", 300);
  req.timing = !args.flag("--no-timing");
  req.validation_sizes = req.time_every_size = args.flag("--every-size");
  req.back_to_back = args.flag("--back-to-back");
  req.memcheck.wanted = args.flag("--memcheck");
  // A candidate from elsewhere: its object is checked first, unless the
  // defences behind the bound are what is being tested.
  const char* bound = std::getenv("KERNELBLASTER_OBJECT_BOUND");
  const std::string bound_setting = bound && *bound ? bound : "on";
  if (bound_setting != "on" && bound_setting != "off")
    throw UsageError("KERNELBLASTER_OBJECT_BOUND takes on or off, not '" + bound_setting + "'");
  req.untrusted = !req.candidate.empty() && bound_setting == "on";
  if ((req.back_to_back || req.memcheck.wanted) && !c.kernelbench_dir.empty())
    throw UsageError(std::string(req.back_to_back ? "--back-to-back times" : "--memcheck checks") +
                     " a native harness; a KernelBench driver runs libtorch");
  // A KernelBench driver starts libtorch and computes torch's reference in
  // every invocation: more time per process than a native harness.
  req.run_timeout_s = args.number("--timeout", c.kernelbench_dir.empty() ? 60 : 180);
  req.implausible_speedup = args.number("--max-speedup", 20);
  req.device = static_cast<int>(args.number("--device", 0));
  req.work_dir = args.value("--work-dir");
  req.keep_work_dir = args.flag("--keep");
  const std::string set_name = args.value("--profile", "none");
  if (set_name != "none") {
    req.profile = profile::metric_set_from_name(set_name);
    if (!req.profile) throw UsageError("--profile takes cheap or full, not '" + set_name + "'");
  }
  if (req.seeds < 3) throw UsageError("--seeds must be at least 3");
  if (req.run_timeout_s <= 0 || req.budget_ms <= 0) throw UsageError("--timeout and --budget-ms must be positive");
  req.lock_dir = default_lock_dir();
  return c;
}

// A harness that replays recorded launches runs a tuned candidate with the
// shapes its values give, as `tune` and the gates do: the reshaped harness
// in the work directory, the values for the candidate's build alone.
void follow_candidate_shapes(EvalCall& c, std::unique_ptr<WorkDir>& scratch) {
  EvalRequest& req = c.req;
  if (req.candidate.empty() || !replays_recorded_launches(req.harness)) return;
  const tuner::TunedShapes t = tuner::shapes_for_tuned(read_file(req.harness), read_file(req.source), req.source,
                                                         read_file(req.candidate), req.compile.include_dirs);
  if (t.harness.empty()) return;
  scratch = std::make_unique<WorkDir>("kernelblaster-eval-harness");
  req.harness = (fs::path(scratch->path()) / fs::path(req.harness).filename()).string();
  write_file(req.harness, t.harness);
  req.candidate_definitions = t.definitions;
}

// The evaluation and what it prints; exit status as eval_command's.
int run_eval(EvalCall c, const std::string& self_exe) {
  std::unique_ptr<WorkDir> scratch;  // the reshaped harness, while the evaluation runs
  follow_candidate_shapes(c, scratch);
  CudaGpuProbe probe;
  Toolchain toolchain = find_toolchain(self_exe);
  if (c.req.memcheck.wanted) c.req.memcheck.tool = find_compute_sanitizer(toolchain.nvcc, &c.req.memcheck.missing);
  EvalResult result = c.kernelbench_dir.empty()
                          ? Evaluator(toolchain, probe).evaluate(c.req)
                          : evaluate_kernelbench_problem(c.req, c.kernelbench_dir, c.torch_prefix, toolchain, probe);
  if (result.status == Status::no_gpu) {
    if (std::string node = nvidia_device_node(); !node.empty()) {
      std::fprintf(stderr, "kernelblaster eval: %s is here but %s\n", node.c_str(), result.detail.c_str());
      return 2;
    }
    std::fprintf(stderr, "kernelblaster eval: skipped: %s\n", result.detail.c_str());
    if (c.json) std::fputs((result_to_json(result) + "\n").c_str(), stdout);  // --json always prints its result
    return 77;
  }
  std::fputs((c.json ? result_to_json(result) + "\n" : result_to_text(result)).c_str(), stdout);
  return result.status == Status::ok ? 0 : 1;
}

}  // namespace

int eval_command(const std::vector<std::string>& argv, const std::string& self_exe) {
  return run_command("eval", kHelp, argv, [&] { return run_eval(parse_call(argv), self_exe); });
}

}  // namespace kernelblaster
