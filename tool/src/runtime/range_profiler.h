// In-process hardware counters for one call of the launcher, with CUPTI's
// Range Profiler (cupti_range_profiler.h, CUDA 12.6+; the session API is
// deprecated in CUDA 13). AutoRange + UserReplay: each kernel the call
// launches is one range; the call runs once per pass, each time after
// `prepare` (fresh inputs, poisoned outputs, L2 flushed), so every pass sees
// the same inputs and a cold L2, as Nsight Compute's cache control gives.
// (Kernel replay would not flush between passes: a 2-pass metric such as the
// L2 hit rate then mixes a cold and a warm pass, and read above 100%.)
// Only kernels between start and stop are profiled: the runtime's helpers
// run in `prepare`, outside.
//
// Two steps, so that the slow one-time work can overlap other work:
//   setup()   CUPTI initialisation, device check, counter availability and
//             the host config image: no GPU work, any thread (it binds the
//             device's primary context itself);
//   enable()  cuptiRangeProfilerEnable and the counter-data image, on the
//             thread that profiles, after the timed runs.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kernelblaster {

struct RangeProfile {
  std::vector<std::map<std::string, double>> ranges;  // one per kernel, launch order
  std::size_t dropped = 0;                            // ranges beyond max_ranges
  std::string error;                                  // why nothing (or not all) was collected
};

class RangeProfiler {
 public:
  RangeProfiler();
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Checks that `device` allows counters and builds the config image of
  // `metrics`. Returns false with a one-line reason (insufficient
  // privileges, vGPU/MIG/WSL, unsupported chip, ...). Never throws. Honours
  // KERNELBLASTER_FAULT_PROFILER (runtime/counter_access.h).
  bool setup(int device, const std::vector<std::string>& metrics, int max_ranges, std::string* why_not);
  // Enables the profiler on the device's context. After a successful setup.
  // `max_ranges` > 0 lowers setup's limit (the call is known to launch that
  // many kernels): the counter-data image and CUPTI's first pass grow with it.
  bool enable(std::string* why_not, int max_ranges = 0);
  // setup() then enable(), on this thread.
  bool prepare(int device, const std::vector<std::string>& metrics, int max_ranges, std::string* why_not);
  const std::string& chip() const;
  int passes() const;
  const std::vector<std::string>& missing() const;  // names the chip rejected
  // Seconds spent per step so far ("initialize", "device_check",
  // "availability", "host_config", "enable", "counter_data", "set_config",
  // "first_prepare", "first_start", "first_call", "first_stop", "passes",
  // "evaluate", "teardown").
  const std::map<std::string, double>& phase_seconds() const;

  bool enabled() const;
  // A fresh counter-data image and cuptiRangeProfilerSetConfig, ahead of
  // profile() (which does it itself when not done). After enable().
  bool configure(std::string* why_not);
  // One throwaway pass over `call` (a trivial kernel, or nothing), decoded
  // and discarded: it pays CUPTI's first-pass costs, so the counted passes
  // of the next profile() start from where a later pass would.
  bool prime(const std::function<void()>& call, std::string* why_not);
  // Profiles the kernels `call` launches (both synchronize themselves).
  // May be called again: each call starts from a fresh counter-data image.
  RangeProfile profile(const std::function<void()>& prepare, const std::function<void()>& call);

  // Disables the profiler and releases CUPTI's profiler state now (else the
  // destructor does), timed as "teardown".
  void release();

 private:
  // configure(), every pass of the config over prepare + call, decode. A
  // counted run times its first pass step by step; a priming one is "prime".
  bool run_passes(const std::function<void()>& prepare, const std::function<void()>& call, bool counted,
                  std::size_t* dropped, std::string* why_not);
  struct State;
  std::unique_ptr<State> m;
};

}  // namespace kernelblaster
