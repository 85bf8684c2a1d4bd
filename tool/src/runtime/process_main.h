// What every harness process shares, the native harness (harness.cc,
// session.cc) and a KernelBench driver (runtime/driver_process.cc):
// exit codes, the command line, the GPU check and how a failed run is
// recorded in the report.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/protocol.h"

namespace kernelblaster {

// Exit codes of a harness process, read by the tool.
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitRunFailed = 3;  // a CUDA or launcher error; the report says which run
constexpr int kExitNoGpu = 77;

struct ProcessArgs {
  std::string plan_path, out_dir;
  bool describe_only = false;
};

// Reads [--describe] [--plan FILE --out DIR]. Returns the exit code to end
// with (--help, or an unknown argument: `usage` is printed, with argv[0] for
// its %s), or nullopt to go on.
std::optional<int> parse_process_args(int argc, char** argv, const char* usage, ProcessArgs* out);

// The plan at `path`, or nothing (and "kernelblaster <who>: <why>" on
// stderr) when it cannot be read: the process then ends with kExitUsage.
std::optional<Plan> read_plan(const std::string& path, const char* who);

// kExitNoGpu (and a line on stderr) when the process has no GPU to run on.
std::optional<int> require_gpu();

// Runs `phases`; a failure ends up in report.error (a CUDA failure by its
// kind, anything else as harness_error unless a phase named it already).
// Returns kExitOk or kExitRunFailed.
int run_phases(HarnessReport& report, const std::function<void()>& phases);

// Ends a process that was run with a plan, once its report is written:
// stdout and stderr flushed, then _Exit, so no exit handler, static
// destructor or library teardown runs after the report and the dumps are
// final: nothing the process holds can rewrite them after the fact (a
// candidate's atexit handler that overwrote the dumps it is judged by).
[[noreturn]] void end_after_report(int code);

// Runs `body` and appends its wall time to report.phase_s as `name` (also
// when it throws: the time a failing phase took is the question then).
void timed_phase(HarnessReport& report, const char* name, const std::function<void()>& body);

}  // namespace kernelblaster
