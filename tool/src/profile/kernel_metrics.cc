#include "profile/kernel_metrics.h"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "profile/metric_sets.h"

namespace kernelblaster::profile {

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

namespace {

// Where no work is declared, the kernel's own position from its counters:
// the FLOPs it executed against the DRAM bytes it moved, in its own time,
// under the roof of the precision it did most of its work in (FP64 has no
// measured roof: no position). `roofline_from_counters` says it was measured.
void add_measured_position(std::map<std::string, double>& m, const Ceilings* ceilings) {
  auto at = [&](const char* k) { return m.count(k) ? m.at(k) : -1.0; };
  const double f32 = at("fp32_flops"), f16 = at("fp16_flops"), f64 = at("fp64_flops");
  const double rd = at("dram_bytes_read"), wr = at("dram_bytes_write"), us = at("duration_us");
  if (f32 < 0 || f16 < 0 || rd < 0 || wr < 0 || us <= 0 || f64 > f32 + f16) return;
  Ceilings c = ceilings ? *ceilings : Ceilings{};
  if (f16 > f32 && c.fp16_gflops > 0) c.fp32_gflops = c.fp16_gflops;
  const bool tensor = at("tensor_pipe_pct") > 1.0;
  for (const auto& [key, v] : roofline_position(f32 + f16, rd + wr, us, c, tensor)) m[key] = v;
  m["roofline_from_counters"] = 1;
}

}  // namespace

std::vector<KernelProfile> build_kernel_profiles(const ProfileInputs& in) {
  std::vector<KernelProfile> out;
  if (!in.report) return out;
  const ProfileReport& r = *in.report;
  struct Entry {
    std::string mangled;
    std::map<std::string, double> metrics;
    double duration = 0;
    int launches = 0;
  };
  std::vector<Entry> entries;
  for (const ProfiledKernel& k : r.kernels) {
    std::map<std::string, double> m = map_counters(k.counters);
    for (const auto& [key, v] : k.launch)
      if (std::isfinite(v)) m[key] = v;
    if (in.ptxas) {
      auto it = in.ptxas->find(k.name);
      if (it != in.ptxas->end())
        for (const auto& [key, v] : ptxas_metrics(it->second))
          if (!m.count(key)) m[key] = v;  // the launch's own numbers win over the compiler's
    }
    double d = m.count("duration_us") ? m["duration_us"] : 0;
    auto same = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.mangled == k.name; });
    if (same == entries.end()) {
      entries.push_back({k.name, std::move(m), d, 1});
    } else {
      if (d > same->duration) same->metrics = std::move(m);
      same->duration += d;
      same->launches++;
    }
  }
  double total = 0;
  for (const Entry& e : entries) total += e.duration;
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.duration > b.duration; });
  for (Entry& e : entries) {
    // Its own launch's work in its own launch's time, before launches are summed.
    if (r.flops < 0 && r.bytes < 0) add_measured_position(e.metrics, in.ceilings ? &*in.ceilings : nullptr);
    if (e.launches > 1) {
      e.metrics["duration_us"] = e.duration;
      e.metrics["launches_per_run"] = e.launches;
    }
    if (total > 0 && e.duration > 0) e.metrics["share_of_call_pct"] = 100.0 * e.duration / total;
    if (in.call_median_us > 0 && total > 0)
      e.metrics["gpu_busy_pct"] = std::min(100.0, 100.0 * total / in.call_median_us);
    if (in.kernels_per_run > 0) e.metrics["kernels_per_run"] = in.kernels_per_run;
    else e.metrics["kernels_per_run"] = static_cast<double>(r.kernels.size());
    // The declared work is the whole call's: positions use the call's total
    // kernel time, and every kernel carries them (share_of_call_pct says how
    // much of that time is its own).
    if (in.ceilings && (r.flops >= 0 || r.bytes >= 0) && total > 0) {
      bool tensor = e.metrics.count("tensor_pipe_pct") && e.metrics["tensor_pipe_pct"] > 1.0;
      for (const auto& [key, v] : roofline_position(r.flops, r.bytes, total, *in.ceilings, tensor))
        e.metrics[key] = v;
    } else if ((r.flops >= 0 || r.bytes >= 0) && total > 0) {
      Ceilings none;
      for (const auto& [key, v] : roofline_position(r.flops, r.bytes, total, none, false)) e.metrics[key] = v;
    }
    out.push_back({demangle(e.mangled), std::move(e.metrics)});
  }
  return out;
}

std::map<std::string, double> dominant_kernel_metrics(const std::vector<KernelProfile>& kernels) {
  return kernels.empty() ? std::map<std::string, double>{} : kernels.front().metrics;
}

}  // namespace kernelblaster::profile
