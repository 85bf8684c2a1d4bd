// The timing loop every runtime shares (native harness sessions and
// KernelBench drivers): a warm-up that sizes the sample, then timed runs.
// A run is a window of host time from just before the launcher call to just
// after a device-wide synchronize, bracketed by CUDA events on the legacy
// stream; CUPTI activity attributes GPU work to the window whose API call
// started it. Between runs, outside every window, the caller prepares the
// next run (fresh inputs, poisoned outputs, L2 flush) and may count what the
// last run left unwritten.
//
// The loop is driven one run at a time (TimedLoop), so a runtime whose
// inputs come from someone else's code can make them anew for every run: a
// KernelBench driver's main() runs once per timed run, and its launcher call
// takes the loop's next step. A run may call the launcher several times back
// to back (TimingRequest::calls_per_run; native sessions only): its times
// are then per call, the window's over the calls, and each call's kernels
// count as a run of their own in the per-kernel timings. The order of the
// runs:
//   warm-up      until 3 runs and warmup_ms have passed; sizes the sample
//   fresh 0..n-2 new inputs every run
//   repeat       the inputs of the fresh run before, unchanged: an honest
//                kernel takes as long; a result cache keyed by the inputs'
//                content answers at once
//   fresh n-1    the last, on new inputs again
// Fresh runs named by TimingRequest::checks run on their own seeds and keep
// their outputs (TimedRunHooks::checked), which the tool judges like a
// correctness run's: a candidate cannot compute while checked and cut
// corners while timed. Before every run the L2's persisting lines are reset
// and its persisting set-aside taken back (device_ops.h), so nothing a call
// pins in the L2 survives into the next.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "runtime/activity_tracer.h"

namespace kernelblaster {

enum class TimedPhase { warmup, fresh, repeat };

// One run of the loop.
struct TimedStep {
  TimedPhase phase = TimedPhase::warmup;
  int index = 0;   // within its phase
  int check = -1;  // fresh runs: the TimingRequest::checks entry this run is, else -1
};

struct TimedRunHooks {
  // Before `step`: enqueue what the run needs (inputs from the step's seed
  // unless it repeats, poisoned outputs, the L2 flush); the loop
  // synchronizes the device afterwards.
  std::function<void(const TimedStep& step)> prepare;
  // The launcher call.
  std::function<void()> call;
  // After each fresh run: output elements it left poisoned (0: none). Optional.
  std::function<std::int64_t()> unwritten;
  // After fresh run `i` of `n` (e.g. read the SM clock halfway). Optional.
  std::function<void(int i, int n)> observe;
  // After a checked fresh run (step.check >= 0), outside its window: keep
  // its outputs. Optional.
  std::function<void(const TimedStep& step)> checked;
};

// The order of a timed loop's runs, apart from the GPU (unit-tested).
class TimedSchedule {
 public:
  TimedSchedule(const TimingRequest& request, int repeat_runs);
  bool done() const { return m_next.phase == TimedPhase::fresh && m_next.index >= m_fresh; }
  // The run to take next; only while !done().
  const TimedStep& next() const { return m_next; }
  // After the run next() named. `warmup_s`: wall seconds since the warm-up
  // began (it ends after 3 runs and warmup_ms; its pace sizes the sample).
  // Returns true when this ended the warm-up.
  bool advance(double warmup_s);
  int fresh_runs() const { return m_fresh; }  // -1 during the warm-up
  int repeat_runs() const { return m_repeats; }

 private:
  const TimingRequest m_request;
  const int m_repeats;
  TimedStep m_next;
  int m_warm = 0;
  int m_fresh = -1;
  int m_repeated = 0;
  std::map<int, int> m_check_at;  // fresh run index -> checks entry
};

class TimedLoop {
 public:
  // `calls`: launcher calls per run, back to back (at least 1).
  TimedLoop(ActivityTracer& tracer, const TimingRequest& request, int repeat_runs, int calls = 1);
  ~TimedLoop();
  TimedLoop(const TimedLoop&) = delete;
  TimedLoop& operator=(const TimedLoop&) = delete;

  bool done() const { return m_schedule.done(); }
  // The run that run() takes next; only while !done().
  const TimedStep& next() const { return m_schedule.next(); }
  // Prepares, times and accounts one run. CUDA errors throw CudaFailure.
  void run(const TimedRunHooks& hooks);
  // The summary, once done(). Fills every field but `size` and `sm_clock_mhz`.
  TimingReport finish();
  // The most L2 any call left set aside for persisting accesses.
  std::uint64_t persisting_l2_bytes() const { return m_persisting; }

 private:
  ActivityTracer& m_tracer;
  TimedSchedule m_schedule;
  const int m_calls;
  std::chrono::steady_clock::time_point m_start, m_warm_start;
  struct Window {
    TimedWindow window;
    double issue_ns = 0;  // the host's time to issue the run's calls
    bool fresh = true;
  };
  std::vector<Window> m_windows;
  TimingReport m_out;
  std::uint64_t m_persisting = 0;
  cudaEvent_t m_start_event = nullptr, m_stop_event = nullptr;
};

// The fresh run indices the checks take once the sample holds `fresh` runs:
// `at` of the way through (1: the last), each a run of its own, in order.
std::vector<int> check_indices(const std::vector<TimedCheck>& checks, int fresh);

// Drives a TimedLoop to its end with the same hooks for every run.
TimingReport run_timed_loop(ActivityTracer& tracer, const TimingRequest& request, int repeat_runs,
                            const TimedRunHooks& hooks, int calls = 1);

// A run's kernels as `calls` runs of their own, when they split evenly
// into that many equal launch sequences; else the run whole.
std::vector<std::vector<KernelRun>> split_calls(const std::vector<KernelRun>& run, int calls);

}  // namespace kernelblaster
