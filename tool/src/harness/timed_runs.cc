#include "harness/timed_runs.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/stats.h"
#include "harness/cuda_check.h"

namespace kernelblaster {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class EventPair {
 public:
  EventPair() {
    cuda_check(cudaEventCreate(&m_start), "event");
    cuda_check(cudaEventCreate(&m_stop), "event");
  }
  ~EventPair() {
    cudaEventDestroy(m_start);
    cudaEventDestroy(m_stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // One run: the device is idle before; the window closes after a
  // device-wide synchronize, so work on any joined stream is inside it.
  TimedWindow run(ActivityTracer& tracer, const std::function<void()>& call) {
    TimedWindow w;
    w.begin = tracer.active() ? tracer.now() : 0;
    cuda_check(cudaEventRecord(m_start, cudaStreamLegacy), "event record");
    call();
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaEventRecord(m_stop, cudaStreamLegacy), "event record");
    cuda_check(cudaDeviceSynchronize(), "kernel execution");
    w.end = tracer.active() ? tracer.now() : 0;
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, m_start, m_stop), "event time");
    w.event_ns = static_cast<double>(ms) * 1e6;
    return w;
  }

 private:
  cudaEvent_t m_start = nullptr, m_stop = nullptr;
};

}  // namespace

TimingReport run_timed_loop(ActivityTracer& tracer, const TimingRequest& tr, int repeat_runs,
                            const TimedRunHooks& hooks) {
  auto t_start = std::chrono::steady_clock::now();
  EventPair events;
  auto prepare = [&](TimedPhase phase, int i) {
    if (hooks.prepare) hooks.prepare(phase, i);
    cuda_check(cudaDeviceSynchronize(), "prepare");
  };

  // Warm-up: caches, clocks and lazy module loading settle; also measures
  // what one run costs in wall time to size the sample.
  auto t_warm = std::chrono::steady_clock::now();
  int warm = 0;
  while (warm < 3 || seconds_since(t_warm) * 1e3 < tr.warmup_ms) {
    prepare(TimedPhase::warmup, warm);
    events.run(tracer, hooks.call);
    if (++warm >= 10000) break;
  }
  double per_run_s = seconds_since(t_warm) / warm;
  int n = static_cast<int>(tr.budget_ms / 1e3 / per_run_s);
  n = std::max(tr.min_runs, std::min(tr.max_runs, n));

  std::vector<GpuActivity> gpu;
  std::unordered_map<std::uint32_t, ApiCall> api;
  if (tracer.active()) tracer.drain(&gpu, &api);  // discard warm-up records

  TimingReport out;
  std::vector<TimedWindow> windows;
  windows.reserve(static_cast<std::size_t>(n + repeat_runs));
  for (int i = 0; i < n; ++i) {
    prepare(TimedPhase::fresh, i);
    windows.push_back(events.run(tracer, hooks.call));
    if (hooks.unwritten) {
      std::int64_t left = hooks.unwritten();
      if (left > 0 && out.unwritten_runs++ == 0)
        out.unwritten_detail = "run " + std::to_string(i) + ": " + std::to_string(left) + " elements";
    }
    if (hooks.observe) hooks.observe(i, n);
  }
  // The same inputs again and again: an honest kernel takes as long as on
  // fresh inputs; one that caches results by input fingerprint does not.
  for (int i = 0; i < repeat_runs; ++i) {
    prepare(TimedPhase::repeat, i);
    windows.push_back(events.run(tracer, hooks.call));
  }
  // Give work handed to other threads a moment to surface.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cuda_check(cudaDeviceSynchronize(), "trailing work");

  out.runs = n;
  out.repeat_runs = repeat_runs;
  std::vector<double> fresh, repeat, event_ns, counts, busy;
  if (tracer.active()) {
    tracer.drain(&gpu, &api);
    Attribution attr = attribute_activity(windows, gpu, api, ActivityTracer::current_thread());
    out.method = "cupti";
    out.foreign_activities = attr.foreign;
    if (attr.foreign > 0) out.untimed_detail = attr.first_foreign;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      const WindowTiming& w = attr.windows[i];
      bool is_fresh = i < static_cast<std::size_t>(n);
      (is_fresh ? fresh : repeat).push_back(w.span_ns);
      if (is_fresh) {
        counts.push_back(w.activities);
        busy.push_back(w.busy_ns);
        if (w.activities == 0) ++out.empty_runs;
      }
      if (w.escaped_events && out.untimed_runs++ == 0 && out.untimed_detail.empty())
        out.untimed_detail = "run " + std::to_string(i) + ": GPU work took " + std::to_string(w.span_ns / 1e3) +
                             " us but the legacy-stream event bracket only " +
                             std::to_string(windows[i].event_ns / 1e3) +
                             " us (work on a stream that is never joined)";
    }
  } else {
    out.method = "events";
    for (std::size_t i = 0; i < windows.size(); ++i)
      (i < static_cast<std::size_t>(n) ? fresh : repeat).push_back(windows[i].event_ns);
  }
  for (int i = 0; i < n; ++i) event_ns.push_back(windows[i].event_ns);
  Summary f = summarize(fresh);
  out.median_ns = f.median;
  out.q1_ns = f.q1;
  out.q3_ns = f.q3;
  out.min_ns = f.min;
  out.event_median_ns = summarize(event_ns).median;
  if (!busy.empty()) {
    Summary b = summarize(busy);
    out.busy_median_ns = b.median;
    out.busy_q1_ns = b.q1;
    out.busy_q3_ns = b.q3;
  }
  out.repeat_median_ns = summarize(repeat).median;
  out.kernels_per_run = summarize(counts).median;
  out.wall_s = seconds_since(t_start);
  return out;
}

}  // namespace kernelblaster
