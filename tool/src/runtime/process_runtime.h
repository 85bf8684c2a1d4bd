// What every harness process does the same way around the calls it judges,
// a native harness's session (session.cc) and a KernelBench driver's
// runtime (driver_process.cc) alike, so that each defence exists once and
// holds in both formats:
//   - the GPU lock, held for everything the process does on the GPU;
//   - the activity tracer, started before any judged call, which sees work
//     outside the judged calls (another thread, a side stream, a deferred
//     launch) and is what the timing loop brackets calls with;
//   - the stream gate around each checked call, so work a call leaves
//     behind on another stream is told from work the call waited for;
//   - L2 set aside for persisting accesses taken back after every call;
//   - the L2 flush buffer;
//   - the profiler's set-up on its own thread, and a profile pass whose
//     failure is a note, never the verdict;
//   - the process's end (run_judged_process): its environment and signal
//     handlers watched from the end of set-up on, the report written once,
//     atomically, and nothing after it (end_after_report); before it, the
//     report so far once the correctness runs are done, for the judge's
//     early look (write_correctness_report).
// What differs between the formats is only where calls come from (the
// native harness calls the launch itself; a driver's main calls the
// launcher, and the runtime acts inside that call) and how outputs are
// found (declared, or learnt from torch::allclose).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "runtime/activity_tracer.h"
#include "runtime/activity_windows.h"
#include "runtime/device_ops.h"
#include "runtime/gpu_lock.h"
#include "runtime/profile_pass.h"
#include "runtime/profiler_warmup.h"

namespace kernelblaster {

class ProcessRuntime {
 public:
  ProcessRuntime(const Plan& plan, HarnessReport& report, std::string out_dir);
  ~ProcessRuntime();  // the profiler's thread joined, the flush buffer freed; the lock goes with the process
  ProcessRuntime(const ProcessRuntime&) = delete;
  ProcessRuntime& operator=(const ProcessRuntime&) = delete;

  // The lock first: everything this process does on the GPU, the context
  // included, happens while it is held. A phase of its own: waiting for
  // another evaluation is not this one's cost.
  void lock();
  // The device, the tracer, the flush buffer, the L2 set aside by default
  // taken back, and the profiler's set-up started when the plan asks for
  // a profile.
  void setup();

  // One checked call (a correctness run, report.runs[run]): gated, bracketed
  // on the tracer's clock, synchronised, the L2 it set aside taken back. Its
  // window is kept for attribute_checked_calls().
  void checked_call(int run, const std::function<void()>& call);
  // The last checked call's window dropped (its run is made again).
  void forget_last_checked_call();
  // The kept windows attributed: each run's activity count, and work no
  // window explains counted in report.foreign_activities. Once, after the
  // correctness runs.
  void attribute_checked_calls();

  // The report as it stands written to out_dir/kCorrectnessReportFile, once
  // the correctness runs are done (protocol.h). A write that fails costs
  // the judge its early look, nothing else.
  void write_correctness_report() const;

  // The plan's profile of one call, into report.profile (with the kernels'
  // flops and bytes left to the caller). A failure is a note.
  void profile(const ProfileHooks& hooks);

  // `count` elements of `width` bytes at `data` (device memory) read back
  // and written beside the report as run<run>_<name>.bin: scratch until
  // the report, written last, vouches for it. `poison` is the byte the
  // output was filled with before the call.
  OutputDump dump_output(int run, const std::string& name, const void* data, std::int64_t count, std::size_t width,
                         std::uint8_t poison);

  void flush_l2();  // on the legacy stream, outside any timed window
  void note_persisting_l2(std::uint64_t bytes);  // what a timing loop saw set aside
  ActivityTracer& tracer() { return m_tracer; }
  const Plan& plan() const { return m_plan; }
  const std::string& out_dir() const { return m_out; }

 private:
  friend int run_judged_process(ProcessRuntime&, const char*, const std::function<void()>&);

  const Plan& m_plan;
  HarnessReport& m_report;
  std::string m_out;
  GpuLock m_lock;
  ActivityTracer m_tracer;
  std::unique_ptr<StreamGate> m_gate;         // made on first use, after the device is chosen
  std::unique_ptr<ProfilerWarmup> m_warmup;  // the profiler, set up while the kernels are checked and timed
  void* m_flush = nullptr;
  std::size_t m_flush_bytes = 0;
  std::uint64_t m_persisting = 0;  // the most L2 a call left set aside for persisting accesses
  std::vector<TimedWindow> m_windows;
  std::vector<int> m_window_runs;
  // Where dumps are read back into: page-locked where the driver allows,
  // grown to the largest dump and kept for the next.
  struct Staging {
    char* data = nullptr;
    std::size_t bytes = 0;
    bool pinned = false;
    ~Staging();
    char* reserve(std::size_t n);
  } m_staging;
};

// A harness process from the lock to its report: "lock wait" and "setup",
// the process watched from there on, then `judged` (the format's own
// phases, each through timed_phase), the report's persisting L2, process
// changes and wall time filled in and the report written to
// out_dir/report.json. Returns the exit code to end with (end_after_report);
// `who` names the process in a line on stderr when the run failed.
int run_judged_process(ProcessRuntime& runtime, const char* who, const std::function<void()>& judged);

}  // namespace kernelblaster
