// The range profiler's one-time set-up (CUPTI initialisation, device check,
// counter availability, host config image: about 0.2 s on the H200) on a
// thread of its own, started right after the session's setup, so that it
// overlaps the correctness and timing runs instead of adding to the
// profiled call's cost. It does no GPU work: the timed runs see nothing of
// it but a busy CPU core. cuptiRangeProfilerEnable, which does touch the
// context, stays on the session's thread after timing. (Enabling and
// configuring it on this thread before timing was tried on the H200 and saved
// nothing: bench/RESULTS.md, issue 4.)
#pragma once

#include <future>
#include <memory>
#include <string>

#include "common/protocol.h"
#include "runtime/range_profiler.h"

namespace kernelblaster {

class ProfilerWarmup {
 public:
  // Starts set-up for `request` on `device` when it asks for counters.
  ProfilerWarmup(const ProfileRequest& request, int device);
  ~ProfilerWarmup();  // waits for the thread
  ProfilerWarmup(const ProfilerWarmup&) = delete;
  ProfilerWarmup& operator=(const ProfilerWarmup&) = delete;

  // Waits for set-up. The profiler when set-up succeeded (enable() is the
  // caller's), else null with the reason in `why_not`. The seconds waited
  // here go to `waited_s`.
  RangeProfiler* wait(std::string* why_not, double* waited_s);

 private:
  std::unique_ptr<RangeProfiler> m_profiler;
  std::future<bool> m_done;
  std::string m_why;
};

}  // namespace kernelblaster
