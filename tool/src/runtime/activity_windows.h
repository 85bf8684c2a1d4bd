// Attribution of GPU activity to timed runs. Pure logic over timestamps, so
// it is unit-tested without a GPU; activity_tracer.cc feeds it CUPTI records.
//
// A timed run is a host window [begin, end]: the device is idle at `begin`,
// the launcher is called, and `end` is taken after a device-wide synchronize.
// A GPU activity (kernel, memcpy, memset) belongs to the run whose window
// holds the host time of the API call that started it. Its device-wide time
// is first start to last end over those activities. Work the launcher leaves
// to another thread after the window, or that escapes the CUDA-event bracket
// on the legacy stream (a non-blocking stream nobody joins), is reported.
// A gated window (device_ops.h, StreamGate) starts with the legacy stream
// held busy by the runtime's gate kernel: an activity of the window that
// starts before the gate ends runs on a stream that is not ordered after
// the caller's; when it also ends after the call returned, the call left it
// running for its caller to race with, and it is reported as unordered. (A
// call that waits for its own stream before returning is fine.)
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/protocol.h"

namespace kernelblaster {

struct GpuActivity {
  std::uint64_t start = 0, end = 0;  // device timestamps (ns, CUPTI clock)
  std::uint32_t correlation = 0;
  std::string kernel;                // a kernel's (mangled) name; empty for a copy or a set
};

// One kernel of a timed run: its name and how long it ran.
struct KernelRun {
  std::string name;
  double ns = 0;
};

struct ApiCall {
  std::uint64_t start = 0, end = 0;  // host timestamps (ns, CUPTI clock)
  std::uint32_t thread = 0;
};

struct TimedWindow {
  std::uint64_t begin = 0, end = 0;  // host timestamps (ns, CUPTI clock)
  double event_ns = 0;               // CUDA-event time of the same run
  bool gated = false;                // a StreamGate held the legacy stream at `begin`
  std::uint64_t returned = 0;        // gated windows: when the call returned (host, CUPTI clock; 0: unknown)
};

struct WindowTiming {
  double span_ns = 0;   // first activity start to last activity end; 0 when no activity
  double busy_ns = 0;   // time some activity of the run was running (the union of their intervals):
                        // the span less the idle gaps in which the GPU waited for the host
  int activities = 0;
  bool escaped_events = false;  // device span exceeds the event bracket
  int unordered = 0;            // gated windows: activities that started before the gate ended and
                                // were still running when the call returned
  std::vector<KernelRun> kernels;  // the run's kernels in the order they started
};

struct Attribution {
  std::vector<WindowTiming> windows;
  int foreign = 0;          // activities launched outside every window by another thread
  std::string first_foreign;
  int unordered = 0;        // over all gated windows
  std::string first_unordered;
};

// `runtime_thread` is the thread that runs the harness: its calls outside
// windows are the runtime's own work (generation, poisoning, flush).
Attribution attribute_activity(const std::vector<TimedWindow>& windows, const std::vector<GpuActivity>& gpu,
                               const std::unordered_map<std::uint32_t, ApiCall>& api,
                               std::uint32_t runtime_thread);

// Each kernel of a call, by its place in the launch order, over the runs
// that launched the usual number of kernels (the most common count; a
// tie goes to the larger): its name in the first of them and the median,
// q1 and q3 of its duration. Empty when no run launched a kernel.
std::vector<KernelTiming> kernel_timings(const std::vector<std::vector<KernelRun>>& runs);

// Length of the union of [start, end) intervals.
std::uint64_t covered_ns(std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals);

// Whether a device span is larger than its event bracket allows: events on
// the legacy stream include every joined stream, so an honest run has
// span <= events plus timer granularity.
bool escapes_event_bracket(double span_ns, double event_ns);

}  // namespace kernelblaster
