// The timing loop every runtime shares (native harness sessions and
// KernelBench drivers): a warm-up that sizes the sample, then timed runs.
// A run is a window of host time from just before the launcher call to just
// after a device-wide synchronize, bracketed by CUDA events on the legacy
// stream; CUPTI activity attributes GPU work to the window whose API call
// started it. Between runs, outside every window, the caller prepares the
// next run (inputs, poisoned outputs, L2 flush) and may count what the
// last run left unwritten.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/protocol.h"
#include "harness/activity_tracer.h"

namespace kernelblaster {

enum class TimedPhase { warmup, fresh, repeat };

struct TimedRunHooks {
  // Before run `i` of `phase`: enqueue what the run needs; the loop
  // synchronizes the device afterwards.
  std::function<void(TimedPhase phase, int i)> prepare;
  // The launcher call.
  std::function<void()> call;
  // After each fresh run: output elements it left poisoned (0: none). Optional.
  std::function<std::int64_t()> unwritten;
  // After fresh run `i` of `n` (e.g. read the SM clock halfway). Optional.
  std::function<void(int i, int n)> observe;
};

// Runs warm-up, `request`-sized fresh runs and `repeat_runs` runs on
// unchanged inputs, and summarizes them. Fills every field of the report
// but `size` and `sm_clock_mhz`. CUDA errors throw CudaFailure.
TimingReport run_timed_loop(ActivityTracer& tracer, const TimingRequest& request, int repeat_runs,
                            const TimedRunHooks& hooks);

}  // namespace kernelblaster
