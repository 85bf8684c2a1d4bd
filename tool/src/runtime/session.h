// Executes a plan against a harness declaration on the GPU and writes the
// report: correctness runs (seeded inputs, poisoned outputs, input
// checksums, output dumps) and device-wide timing.
#pragma once

#include <string>

#include "common/protocol.h"
#include "runtime/process_main.h"
#include "runtime/spec.h"

namespace kernelblaster {

// The declaration as the report carries it (no GPU needed).
HarnessReport describe(const Harness::Spec& spec);
// Runs `plan`, writing report.json and dumps into `out_dir`. Returns an exit code.
int run_plan(const Harness::Spec& spec, const Plan& plan, const std::string& out_dir);

}  // namespace kernelblaster
