#include "runtime/timed_runs.h"

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "common/clock.h"
#include "common/stats.h"
#include "runtime/cuda_check.h"
#include "runtime/device_ops.h"

namespace kernelblaster {
std::vector<int> check_indices(const std::vector<TimedCheck>& checks, int fresh) {
  std::vector<int> at;
  int last = -1;
  for (std::size_t k = 0; k < checks.size(); ++k) {
    int i = checks[k].at >= 1.0 ? fresh - 1 : static_cast<int>(checks[k].at * fresh);
    // Room for the checks still to come; never before an earlier one.
    const int room = static_cast<int>(checks.size() - k - 1);
    i = std::min(std::max(i, last + 1), fresh - 1 - room);
    at.push_back(i);
    last = i;
  }
  return at;
}

TimedSchedule::TimedSchedule(const TimingRequest& request, int repeat_runs)
    : m_request(request), m_repeats(std::max(0, repeat_runs)) {}

bool TimedSchedule::advance(double warmup_s) {
  TimedStep& s = m_next;
  bool sized = false;
  switch (s.phase) {
    case TimedPhase::warmup: {
      ++m_warm;
      if (!((m_warm >= 3 && warmup_s * 1e3 >= m_request.warmup_ms) || m_warm >= 10000)) {
        s.index = m_warm;
        return false;
      }
      // What one run costs in wall time (the caller's preparation and, for a
      // driver, its whole invocation included) sizes the sample.
      const double per_run_s = warmup_s / m_warm;
      int n = per_run_s > 0 ? static_cast<int>(m_request.budget_ms / 1e3 / per_run_s) : m_request.max_runs;
      n = std::max(m_request.min_runs, std::min(m_request.max_runs, n));
      // Every check needs a run of its own, and the repeat probe a fresh run before it.
      n = std::max({n, static_cast<int>(m_request.checks.size()), 2});
      m_fresh = n;
      std::vector<int> at = check_indices(m_request.checks, n);
      for (std::size_t k = 0; k < at.size(); ++k) m_check_at[at[k]] = static_cast<int>(k);
      s = {TimedPhase::fresh, 0, -1};
      sized = true;
      break;
    }
    case TimedPhase::fresh:
      ++s.index;
      if (s.index == m_fresh - 1 && m_repeated < m_repeats) s = {TimedPhase::repeat, 0, -1};
      break;
    case TimedPhase::repeat:
      ++m_repeated;
      s.index = m_repeated;
      if (m_repeated >= m_repeats) s = {TimedPhase::fresh, m_fresh - 1, -1};
      break;
  }
  if (s.phase == TimedPhase::fresh) {
    auto it = m_check_at.find(s.index);
    s.check = it == m_check_at.end() ? -1 : it->second;
  }
  return sized;
}

std::vector<std::vector<KernelRun>> split_calls(const std::vector<KernelRun>& run, int calls) {
  const std::size_t k = static_cast<std::size_t>(std::max(1, calls));
  if (k == 1 || run.empty() || run.size() % k != 0) return {run};
  const std::size_t each = run.size() / k;
  std::vector<std::vector<KernelRun>> out;
  for (std::size_t c = 0; c < k; ++c) {
    out.emplace_back(run.begin() + static_cast<std::ptrdiff_t>(c * each),
                     run.begin() + static_cast<std::ptrdiff_t>((c + 1) * each));
    for (std::size_t i = 0; i < each; ++i)
      if (out.back()[i].name != run[i].name) return {run};  // the calls launched unlike sequences
  }
  return out;
}

TimedLoop::TimedLoop(ActivityTracer& tracer, const TimingRequest& request, int repeat_runs, int calls)
    : m_tracer(tracer), m_schedule(request, repeat_runs), m_calls(std::max(1, calls)) {
  m_start = m_warm_start = std::chrono::steady_clock::now();
  cuda_check(cudaEventCreate(&m_start_event), "event");
  cuda_check(cudaEventCreate(&m_stop_event), "event");
}

TimedLoop::~TimedLoop() {
  cudaEventDestroy(m_start_event);
  cudaEventDestroy(m_stop_event);
}

void TimedLoop::run(const TimedRunHooks& hooks) {
  const TimedStep step = m_schedule.next();
  // Nothing a call pinned in the L2 outlives it: taken back before the
  // caller's preparation, whose flush then evicts those lines too.
  m_persisting = std::max<std::uint64_t>(m_persisting, take_back_persisting_l2());
  if (hooks.prepare) hooks.prepare(step);
  cuda_check(cudaDeviceSynchronize(), "prepare");

  // One run: the device is idle before; the window closes after a
  // device-wide synchronize, so work on any joined stream is inside it.
  TimedWindow w;
  w.begin = m_tracer.active() ? m_tracer.now() : 0;
  cuda_check(cudaEventRecord(m_start_event, cudaStreamLegacy), "event record");
  const auto issue_start = std::chrono::steady_clock::now();
  for (int c = 0; c < m_calls; ++c) hooks.call();
  const double issue_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - issue_start).count();
  cuda_check(cudaGetLastError(), "kernel launch");
  cuda_check(cudaEventRecord(m_stop_event, cudaStreamLegacy), "event record");
  cuda_check(cudaDeviceSynchronize(), "kernel execution");
  w.end = m_tracer.active() ? m_tracer.now() : 0;
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, m_start_event, m_stop_event), "event time");
  w.event_ns = static_cast<double>(ms) * 1e6;  // the whole window: attribution compares it

  if (step.phase != TimedPhase::warmup) m_windows.push_back({w, issue_ns, step.phase == TimedPhase::fresh});
  if (step.phase == TimedPhase::fresh) {
    if (hooks.unwritten) {
      std::int64_t left = hooks.unwritten();
      m_out.unwritten_max = std::max(m_out.unwritten_max, left);
      if (left > 0 && m_out.unwritten_runs++ == 0)
        m_out.unwritten_detail = "run " + std::to_string(step.index) + ": " + std::to_string(left) + " elements";
    }
    if (step.check >= 0 && hooks.checked) hooks.checked(step);
    if (hooks.observe) hooks.observe(step.index, m_schedule.fresh_runs());
  }
  if (m_schedule.advance(seconds_since(m_warm_start)) && m_tracer.active()) {
    m_tracer.discard();  // the warm-up's records are of no use
  }
}

TimingReport TimedLoop::finish() {
  // Give work handed to other threads a moment to surface.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cuda_check(cudaDeviceSynchronize(), "trailing work");
  m_persisting = std::max<std::uint64_t>(m_persisting, take_back_persisting_l2());

  TimingReport out = m_out;
  out.runs = m_schedule.fresh_runs();
  out.repeat_runs = m_schedule.repeat_runs();
  std::vector<double> fresh, repeat, event_ns, counts, busy;
  std::vector<std::vector<KernelRun>> kernels;
  std::vector<TimedWindow> windows;
  for (const Window& w : m_windows) windows.push_back(w.window);
  if (m_tracer.active()) {
    Attribution attr = m_tracer.attribute(windows);
    out.method = "cupti";
    out.foreign_activities = attr.foreign;
    if (attr.foreign > 0) out.untimed_detail = attr.first_foreign;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      const WindowTiming& w = attr.windows[i];
      const bool is_fresh = m_windows[i].fresh;
      (is_fresh ? fresh : repeat).push_back(w.span_ns / m_calls);
      if (is_fresh) {
        counts.push_back(static_cast<double>(w.activities) / m_calls);
        busy.push_back(w.busy_ns / m_calls);
        for (std::vector<KernelRun>& call : split_calls(w.kernels, m_calls)) kernels.push_back(std::move(call));
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
    for (const Window& w : m_windows) (w.fresh ? fresh : repeat).push_back(w.window.event_ns / m_calls);
  }
  std::vector<double> issue_ns;
  for (const Window& w : m_windows)
    if (w.fresh) {
      event_ns.push_back(w.window.event_ns / m_calls);
      issue_ns.push_back(w.issue_ns / m_calls);
    }
  Summary f = summarize(fresh);
  out.median_ns = f.median;
  out.q1_ns = f.q1;
  out.q3_ns = f.q3;
  out.min_ns = f.min;
  out.event_median_ns = summarize(event_ns).median;
  out.issue_median_ns = summarize(issue_ns).median;
  if (!busy.empty()) {
    Summary b = summarize(busy);
    out.busy_median_ns = b.median;
    out.busy_q1_ns = b.q1;
    out.busy_q3_ns = b.q3;
  }
  out.repeat_median_ns = summarize(repeat).median;
  out.kernels_per_run = summarize(counts).median;
  out.kernels = kernel_timings(kernels);
  out.wall_s = seconds_since(m_start);
  return out;
}

TimingReport run_timed_loop(ActivityTracer& tracer, const TimingRequest& request, int repeat_runs,
                            const TimedRunHooks& hooks, int calls) {
  TimedLoop loop(tracer, request, repeat_runs, calls);
  while (!loop.done()) loop.run(hooks);
  return loop.finish();
}

}  // namespace kernelblaster
