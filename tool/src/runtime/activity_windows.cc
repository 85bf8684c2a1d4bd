#include "runtime/activity_windows.h"

#include <algorithm>
#include <map>

#include "common/stats.h"

namespace kernelblaster {
namespace {
// Work ordered after the gate starts after it ends; timestamps of
// back-to-back work on one stream are not guaranteed a gap, so 2 us of
// overlap are forgiven (work on an unordered stream starts at least
// kGateHoldAfterReturnUs early: the gate lasts until after the call returns).
// The same 2 us separate "ended before the call returned" from "still
// running" (device and host clocks are aligned by CUPTI, not exactly).
constexpr std::uint64_t kGateSlackNs = 2000;
}  // namespace

std::uint64_t covered_ns(std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::uint64_t total = 0, reach = 0;
  for (const auto& [start, end] : intervals) {
    std::uint64_t from = std::max(start, reach);
    if (end > from) total += end - from;
    reach = std::max(reach, end);
  }
  return total;
}

bool escapes_event_bracket(double span_ns, double event_ns) {
  // cudaEventElapsedTime resolves about 0.5 us; 1.5 us plus 5% keeps honest
  // runs clear of the line while a few microseconds of hidden work is not.
  return span_ns > event_ns * 1.05 + 1500.0;
}

Attribution attribute_activity(const std::vector<TimedWindow>& windows, const std::vector<GpuActivity>& gpu,
                               const std::unordered_map<std::uint32_t, ApiCall>& api,
                               std::uint32_t runtime_thread) {
  Attribution out;
  out.windows.resize(windows.size());
  std::vector<std::uint64_t> first(windows.size(), UINT64_MAX), last(windows.size(), 0);
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> intervals(windows.size());
  std::vector<std::vector<std::pair<std::uint64_t, const GpuActivity*>>> starts(windows.size());

  // Windows are disjoint and in time order: binary search by begin.
  auto window_of = [&](std::uint64_t t) -> int {
    auto it = std::upper_bound(windows.begin(), windows.end(), t,
                               [](std::uint64_t v, const TimedWindow& w) { return v < w.begin; });
    if (it == windows.begin()) return -1;
    --it;
    return t <= it->end ? static_cast<int>(it - windows.begin()) : -1;
  };

  // The gate of window w: the runtime's last work before w.begin, i.e. the
  // latest end among the runtime's activities launched since the previous window.
  std::vector<std::uint64_t> gate_end(windows.size(), 0);
  for (const GpuActivity& a : gpu) {
    auto call = api.find(a.correlation);
    if (a.end == 0 || call == api.end() || call->second.thread != runtime_thread) continue;
    if (window_of(call->second.start) >= 0) continue;
    auto next = std::upper_bound(windows.begin(), windows.end(), call->second.start,
                                 [](std::uint64_t v, const TimedWindow& w) { return v < w.begin; });
    if (next == windows.end() || !next->gated) continue;
    std::size_t w = static_cast<std::size_t>(next - windows.begin());
    gate_end[w] = std::max(gate_end[w], a.end);
  }

  for (const GpuActivity& a : gpu) {
    if (a.start == 0 || a.end == 0) continue;  // CUPTI could not time it
    auto call = api.find(a.correlation);
    int w = -1;
    if (call != api.end()) {
      w = window_of(call->second.start);
      if (w < 0 && call->second.thread == runtime_thread) continue;  // the runtime's own work
      const bool left_running =
          w >= 0 && (windows[static_cast<std::size_t>(w)].returned == 0 ||
                     a.end > windows[static_cast<std::size_t>(w)].returned + kGateSlackNs);
      if (left_running && a.start + kGateSlackNs < gate_end[static_cast<std::size_t>(w)]) {
        out.windows[static_cast<std::size_t>(w)].unordered++;
        if (out.unordered++ == 0)
          out.first_unordered = "GPU work started " +
                                std::to_string((gate_end[static_cast<std::size_t>(w)] - a.start) / 1000) +
                                " us before the work queued ahead of the call on the default stream ended, and was "
                                "still running when the call returned: it runs on a stream that is not ordered after "
                                "the caller's (correlation " +
                                std::to_string(a.correlation) + ")";
      }
    } else {
      w = window_of(a.start);  // no API record (e.g. device-side launch): place it by device time
      if (w < 0) continue;
    }
    if (w < 0) {
      if (out.foreign++ == 0)
        out.first_foreign = "GPU work launched by another thread outside the timed region (correlation " +
                            std::to_string(a.correlation) + ")";
      continue;
    }
    first[w] = std::min(first[w], a.start);
    last[w] = std::max(last[w], a.end);
    out.windows[w].activities++;
    intervals[w].emplace_back(a.start, a.end);
    if (!a.kernel.empty()) starts[w].push_back({a.start, &a});
  }
  for (std::size_t w = 0; w < windows.size(); ++w) {
    if (out.windows[w].activities == 0) continue;
    out.windows[w].span_ns = static_cast<double>(last[w] - first[w]);
    out.windows[w].busy_ns = static_cast<double>(covered_ns(intervals[w]));
    out.windows[w].escaped_events = escapes_event_bracket(out.windows[w].span_ns, windows[w].event_ns);
    std::stable_sort(starts[w].begin(), starts[w].end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [start, a] : starts[w])
      out.windows[w].kernels.push_back({a->kernel, static_cast<double>(a->end - a->start)});
  }
  return out;
}

std::vector<KernelTiming> kernel_timings(const std::vector<std::vector<KernelRun>>& runs) {
  std::map<std::size_t, int> counts;
  for (const std::vector<KernelRun>& r : runs)
    if (!r.empty()) ++counts[r.size()];
  std::size_t usual = 0;
  int most = 0;
  for (const auto& [n, c] : counts)
    if (c >= most) usual = n, most = c;
  std::vector<KernelTiming> out(usual);
  std::vector<std::vector<double>> ns(usual);
  for (const std::vector<KernelRun>& r : runs) {
    if (r.size() != usual) continue;
    for (std::size_t k = 0; k < usual; ++k) {
      if (out[k].name.empty()) out[k].name = r[k].name;
      ns[k].push_back(r[k].ns);
    }
  }
  for (std::size_t k = 0; k < usual; ++k) {
    Summary s = summarize(ns[k]);
    out[k].median_ns = s.median;
    out[k].q1_ns = s.q1;
    out[k].q3_ns = s.q3;
  }
  return out;
}

}  // namespace kernelblaster
