#include "cli/eval_command.h"

#include <cstdio>
#include <cstdlib>

#include "cli/args.h"
#include "eval/evaluator.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster eval --source ORIGINAL.cu --harness HARNESS.cu [--candidate CANDIDATE.cu] [options]

Builds the harness against the original source (the reference) and against the
candidate, runs each in its own process on the same fresh seeds, and reports
whether the candidate is correct and how much faster it is. Without
--candidate, the original is judged against itself.

  --arch sm_XY          GPU architecture (default: the GPU's own)
  -I DIR, -D NAME[=V]   include directories and definitions for nvcc
  --nvcc-flag FLAG      an extra nvcc flag (repeatable)
  --manifest FILE       compile settings as JSON: arch, include_dirs, definitions, flags
  --seeds N             fresh seeds per size (default 3, at least 3)
  --seed S              fixed first seed instead of fresh random ones
  --budget-ms MS        timed runs per size (default 300)
  --no-timing           correctness only
  --timeout S           per harness process (default 60)
  --max-speedup X       re-verify speedups above X (default 20)
  --device N            CUDA device (default 0)
  --work-dir DIR        keep scratch builds and dumps here
  --keep                keep the temporary work directory
  --json                print the result as JSON

Exit status: 0 accepted, 1 rejected, 2 bad usage, 77 no GPU on this machine.
)";

}  // namespace

int eval_command(const std::vector<std::string>& argv, const std::string& self_exe) {
  for (const std::string& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
  EvalRequest req;
  bool json = false;
  try {
    Args args(argv,
              {"--source", "--harness", "--candidate", "--arch", "-I", "-D", "--nvcc-flag", "--manifest", "--seeds",
               "--seed", "--budget-ms", "--timeout", "--max-speedup", "--device", "--work-dir"},
              {"--json", "--keep", "--no-timing"});
    json = args.flag("--json");
    req.source = args.value("--source");
    req.harness = args.value("--harness");
    req.candidate = args.value("--candidate");
    if (req.source.empty()) throw UsageError("--source is required");
    if (req.harness.empty()) throw UsageError("--harness is required");
    if (!args.value("--manifest").empty()) req.compile = settings_from_manifest(args.value("--manifest"));
    if (!args.value("--arch").empty()) req.compile.arch = args.value("--arch");
    for (const auto& v : args.values("-I")) req.compile.include_dirs.push_back(v);
    for (const auto& v : args.values("-D")) req.compile.definitions.push_back(v);
    for (const auto& v : args.values("--nvcc-flag")) req.compile.flags.push_back(v);
    req.seeds = static_cast<int>(args.number("--seeds", 3));
    req.seed_base = static_cast<std::uint64_t>(args.number("--seed", 0));
    req.budget_ms = args.number("--budget-ms", 300);
    req.timing = !args.flag("--no-timing");
    req.run_timeout_s = args.number("--timeout", 60);
    req.implausible_speedup = args.number("--max-speedup", 20);
    req.device = static_cast<int>(args.number("--device", 0));
    req.work_dir = args.value("--work-dir");
    req.keep_work_dir = args.flag("--keep");
    if (req.seeds < 3) throw UsageError("--seeds must be at least 3");
    if (req.run_timeout_s <= 0 || req.budget_ms <= 0) throw UsageError("--timeout and --budget-ms must be positive");
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster eval: %s (see --help)\n", x.what());
    return 2;
  }
  const char* lock_dir = std::getenv("KERNELBLASTER_LOCK_DIR");
  req.lock_dir = lock_dir && *lock_dir ? lock_dir : "/tmp/kernelblaster-locks";

  CudaGpuProbe probe;
  Evaluator evaluator(find_toolchain(self_exe), probe);
  EvalResult result;
  try {
    result = evaluator.evaluate(req);
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster eval: %s\n", x.what());
    return 2;
  }
  if (result.status == Status::no_gpu) {
    std::fprintf(stderr, "kernelblaster eval: skipped: %s\n", result.detail.c_str());
    return 77;
  }
  std::fputs((json ? result_to_json(result) + "\n" : result_to_text(result)).c_str(), stdout);
  return result.status == Status::ok ? 0 : 1;
}

}  // namespace kernelblaster
