// What a KernelBench driver says on standard output: its own verdict on the
// launcher's result ("passed" or "failed", from torch::allclose at
// rtol = atol = 0.1). Kept as a second check beside the tool's judges.
#pragma once

#include <string>

#include "common/protocol.h"

namespace kernelblaster::runtime {

// passed, failed or none (neither word on any line): the last line that
// has one of them as a word decides. `detail` gets that line, or the last
// lines when there is none.
DriverVerdict driver_verdict_of(const std::string& output, std::string* detail);

}  // namespace kernelblaster::runtime
