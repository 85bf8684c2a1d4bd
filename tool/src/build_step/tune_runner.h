// Runs `kernelblaster tune` as a child process for the build step: its
// stderr (live progress) goes straight to ours, its stdout (the --json
// result) is read back into a TuneOutcome.
#pragma once

#include <string>

#include "build_step/build_step.h"

namespace kernelblaster::build_step {

// `tool` is the kernelblaster executable. The child is killed when it runs
// past the budget by more than `grace_s`. Never throws.
TuneOutcome run_tuner(const std::string& tool, const TuneRequest& req, double grace_s = 600);

// Parses the JSON `kernelblaster tune --json` printed; fills what it finds.
void parse_tune_json(const std::string& json_text, TuneOutcome& out);

}  // namespace kernelblaster::build_step
