// The profiled call of a plan: after correctness and timing, in the
// candidate's main-round process (the tool never takes timing from it).
// Hardware counters where the device and permissions allow, launch facts and
// theoretical occupancy from the kernel activity records always.
#pragma once

#include <functional>

#include "common/protocol.h"
#include "runtime/activity_tracer.h"
#include "runtime/profiler_warmup.h"

namespace kernelblaster {

struct ProfileHooks {
  std::function<void()> prepare;  // fresh inputs, poisoned outputs, L2 flushed, device synchronized
  std::function<void()> call;     // one launcher call, device synchronized; throws on a CUDA failure
};

// Counter failures end up in the report's note, never as an exception; a
// failure of the call itself propagates. `warmup` holds the profiler whose
// set-up ran while the session timed the kernels. The tracer is stopped
// before the counted passes (see run_profile_pass).
ProfileReport run_profile_pass(const ProfileRequest& request, int device, ActivityTracer& tracer,
                               const ProfileHooks& hooks, ProfilerWarmup& warmup);

}  // namespace kernelblaster
