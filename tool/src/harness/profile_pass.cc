#include "harness/profile_pass.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "harness/range_profiler.h"
#include "profile/occupancy.h"

namespace kernelblaster {
namespace {

profile::DeviceLimits limits_of(int device) {
  profile::DeviceLimits d;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return d;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.regs_per_block = p.regsPerBlock;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.warp_size = p.warpSize;
  d.smem_per_block = p.sharedMemPerBlock;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  d.reserved_smem_per_block = p.reservedSharedMemPerBlock;
  return d;
}

std::map<std::string, double> facts_of(const KernelLaunchRecord& k, const profile::DeviceLimits& d) {
  profile::LaunchFacts l;
  l.grid_blocks = k.grid_x * k.grid_y * k.grid_z;
  l.block_threads = k.block_x * k.block_y * k.block_z;
  l.registers_per_thread = k.registers_per_thread;
  l.static_smem_bytes = k.static_smem_bytes;
  l.dynamic_smem_bytes = k.dynamic_smem_bytes;
  l.local_mem_per_thread_bytes = k.local_mem_per_thread_bytes;
  std::map<std::string, double> m = profile::launch_metrics(l, profile::theoretical_occupancy(d, l));
  // Under the profiler the records may carry no timestamps: absent, not 0.
  if (k.end > k.start) m["activity_duration_us"] = (k.end - k.start) / 1e3;
  return m;
}

}  // namespace

ProfileReport run_profile_pass(const ProfileRequest& req, int device, ActivityTracer& tracer,
                               const ProfileHooks& hooks) {
  auto t0 = std::chrono::steady_clock::now();
  ProfileReport report;
  report.requested = true;
  report.set = req.set;

  RangeProfiler profiler;
  bool counters = false;
  if (!req.metrics.empty()) {
    std::string why;
    counters = profiler.prepare(device, req.metrics, req.max_kernels, &why);
    report.chip = profiler.chip();
    report.passes = profiler.passes();
    report.missing = profiler.missing();
    if (!counters) report.note = why + "; timing and compile-time facts only";
  } else {
    report.note = "no counters requested";
  }
  if (!tracer.active()) {
    std::string why;
    if (!tracer.start(&why)) report.note += std::string(report.note.empty() ? "" : "; ") + "no launch facts: " + why;
  }

  // Launch facts of the first pass only: the runtime's own kernels (input
  // generation, L2 flush) run in prepare, outside, and later passes repeat
  // the same launches.
  std::vector<GpuActivity> gpu;
  std::unordered_map<std::uint32_t, ApiCall> api;
  std::vector<KernelLaunchRecord> launches;
  bool first = true;
  auto prepare = [&] {
    hooks.prepare();
    if (first && tracer.active()) {
      tracer.drain(&gpu, &api);
      tracer.drain_launches();
      tracer.set_keep_launches(true);
    }
  };
  auto call = [&] {
    hooks.call();
    if (first && tracer.active()) {
      launches = tracer.drain_launches();
      tracer.set_keep_launches(false);
    }
    first = false;
  };
  RangeProfile ranges;
  if (counters) {
    ranges = profiler.profile(prepare, call);
    if (!ranges.error.empty()) report.note = "counters unavailable: " + ranges.error + "; timing and compile-time facts only";
  } else {
    prepare();
    call();
  }
  if (tracer.active()) tracer.drain(&gpu, &api);
  // One record per correlation id, in launch order (the order of the ranges).
  std::sort(launches.begin(), launches.end(),
            [](const KernelLaunchRecord& a, const KernelLaunchRecord& b) { return a.correlation_id < b.correlation_id; });
  launches.erase(std::unique(launches.begin(), launches.end(),
                             [](const KernelLaunchRecord& a, const KernelLaunchRecord& b) {
                               return a.correlation_id == b.correlation_id;
                             }),
                 launches.end());

  profile::DeviceLimits limits = limits_of(device);
  std::size_t n = std::max(launches.size(), ranges.ranges.size());
  if (!launches.empty() && !ranges.ranges.empty() && launches.size() != ranges.ranges.size())
    report.note = "counters of " + std::to_string(ranges.ranges.size()) + " ranges for " +
                  std::to_string(launches.size()) + " kernel launches: matched in launch order";
  if (ranges.dropped > 0)
    report.note = std::to_string(ranges.dropped) + " kernels beyond the first " + std::to_string(req.max_kernels) +
                  " were not profiled";
  for (std::size_t i = 0; i < n; ++i) {
    ProfiledKernel k;
    if (i < launches.size()) {
      k.name = launches[i].name;
      k.launch = facts_of(launches[i], limits);
    } else {
      k.name = "kernel " + std::to_string(i);
    }
    if (i < ranges.ranges.size()) k.counters = ranges.ranges[i];
    report.kernels.push_back(std::move(k));
  }
  report.phase_s = profiler.phase_seconds();
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace kernelblaster
