// Executes a plan against a harness declaration on the GPU and writes the
// report: correctness runs (seeded inputs, poisoned outputs, input
// checksums, output dumps) and device-wide timing.
#pragma once

#include <string>

#include "common/protocol.h"
#include "harness/spec.h"

namespace kernelblaster {

// Exit codes of a harness process, read by the tool.
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitRunFailed = 3;  // a CUDA or launcher error; the report says which run
constexpr int kExitNoGpu = 77;

// The declaration as the report carries it (no GPU needed).
HarnessReport describe(const Harness::Spec& spec);
// Runs `plan`, writing report.json and dumps into `out_dir`. Returns an exit code.
int run_plan(const Harness::Spec& spec, const Plan& plan, const std::string& out_dir);

}  // namespace kernelblaster
