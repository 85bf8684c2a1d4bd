// Runtime side of KernelBench evaluation, linked into the driver binary with
// the harness runtime. The generated launcher calls timed_call with the
// kernel source's launcher; without KB_TIMING_OUT that is a plain call, with
// it the call is also timed device-wide (CUPTI activity, L2 flushed before
// each run) and the timing written as JSON to the path KB_TIMING_OUT names.
#pragma once

#include <functional>

namespace kernelblaster::kernelbench {

// Calls `fn` (the launcher) and checks the CUDA error state after it. When
// timing is requested it first runs warm-up and timed runs, then calls `fn`
// once more so the driver checks the result of a fresh call. A CUDA error
// ends the process with a line "kb_shim: <status>: <message>" on stderr and
// exit code 3, where <status> is launch_failed or crashed.
void timed_call(const std::function<void()>& fn);

}  // namespace kernelblaster::kernelbench
