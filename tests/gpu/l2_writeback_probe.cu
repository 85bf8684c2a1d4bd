// What a CUPTI range does with the L2 and the DRAM counters, measured with
// the harness's own RangeProfiler under three metric configurations (DRAM
// only, the profiler's cheap and full sets), then with the harness's CUPTI
// activity tracer on. Each scenario is one profile: `prepare` runs
// unprofiled, `call` inside the range(s); one JSON line each.
// tool/src/profile/METRICS.md ("DRAM writes under the range profiler")
// reports what it found on the H200. Exit 77 without a GPU.
#include <cuda_runtime.h>
#include <filesystem>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/activity_tracer.h"
#include "runtime/range_profiler.h"
#include "probe_kernels.cuh"
#include "profile/metric_sets.h"

namespace {

using namespace kernelblaster::probe;

void sync() {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Buffers {
  float4* small = nullptr;  // a quarter of the L2
  std::size_t small_bytes = 0;
  float4* big = nullptr;  // 256 MB
  std::size_t big_bytes = 256u << 20;
  uint4* scratch = nullptr;  // 4x the L2, for read-only eviction
  std::size_t scratch_bytes = 0;
  uint4* unwritten = nullptr;  // 2x the L2, allocated and never written (as the harness's flush buffer was)
  unsigned* sink = nullptr;
};

void write(float4* p, std::size_t bytes) {
  write_kernel<<<1024, 256>>>(p, bytes / 16, 1.0f);
  sync();
}
void evict(const Buffers& b, std::size_t bytes) {
  read_kernel<<<4096, 256>>>(b.scratch, bytes / 16, b.sink);
  sync();
}
void empty() {
  empty_kernel<<<1, 32>>>();
  sync();
}

struct Scenario {
  std::string name;
  std::function<void()> prepare, call;
};

}  // namespace

int main() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    // Skip only where there is no GPU: with a device node here, CUDA
    // failing is a broken driver or runtime, not a machine without a GPU.
    const bool node = std::filesystem::exists("/dev/nvidiactl") || std::filesystem::exists("/dev/nvidia0");
    std::fprintf(stderr, "%s: %s\n", node ? "an NVIDIA device is here but CUDA fails" : "no CUDA GPU",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return node ? 1 : 77;
  }
  cudaSetDevice(0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  Buffers b;
  b.small_bytes = static_cast<std::size_t>(prop.l2CacheSize) / 4 / 16 * 16;
  b.scratch_bytes = 4 * static_cast<std::size_t>(prop.l2CacheSize);
  cudaMalloc(&b.small, b.small_bytes);
  cudaMalloc(&b.big, b.big_bytes);
  cudaMalloc(&b.scratch, b.scratch_bytes);
  cudaMalloc(&b.unwritten, 2 * static_cast<std::size_t>(prop.l2CacheSize));
  cudaMalloc(&b.sink, sizeof(unsigned));
  cudaMemset(b.scratch, 0, b.scratch_bytes);
  sync();
  std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
  std::printf("{\"device\": \"%s\", \"l2_bytes\": %zu, \"small_bytes\": %zu}\n", prop.name, l2, b.small_bytes);

  // Scenarios under three metric configurations: DRAM only, and the
  // profiler's own cheap and full sets.
  const std::vector<std::string> dram = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                                         "dram__throughput.avg.pct_of_peak_sustained_elapsed"};
  auto with_dram = [&](std::vector<std::string> m) {
    for (const std::string& d : dram)
      if (std::find(m.begin(), m.end(), d) == m.end()) m.push_back(d);
    return m;
  };
  using kernelblaster::profile::MetricSet;
  std::vector<std::pair<std::string, std::vector<std::string>>> configs = {
      {"dram", dram},
      {"cheap", with_dram(kernelblaster::profile::cupti_metrics(MetricSet::cheap))},
      {"full", with_dram(kernelblaster::profile::cupti_metrics(MetricSet::full))}};
  auto clean = [&] { evict(b, 2 * l2); };
  // The harness's own prepare: inputs generated and outputs poisoned (both
  // leave dirty lines), then a read-only eviction of twice the L2.
  auto harness_like = [&](int times) {
    write(b.big, b.big_bytes / 2);
    write(b.big + b.big_bytes / 32, b.big_bytes / 2);
    evict(b, times * l2);
  };
  // As the harness really does it: the output poisoned with cudaMemset.
  auto harness_like_memset = [&] {
    write(b.big, b.big_bytes / 2);
    cudaMemsetAsync(b.big + b.big_bytes / 32, 0xFF, b.big_bytes / 2, cudaStreamLegacy);
    evict(b, 2 * l2);
  };
  auto copy = [&] {
    copy_kernel<<<4096, 256>>>(b.big, b.big + b.big_bytes / 32, b.big_bytes / 32);
    sync();
  };
  // vector_add at the harness's large size: a and b (64 MiB each) written by
  // a kernel, c poisoned with cudaMemset, then evicted (or not), c = a + b.
  const std::size_t va = 64u << 20;
  float4* va_a = b.big;
  float4* va_b = b.big + va / 16;
  float4* va_c = b.big + 2 * va / 16;
  auto va_prep = [&](const uint4* evict_from) {
    write_kernel<<<1024, 256>>>(va_a, va / 16, 1.0f);
    write_kernel<<<1024, 256>>>(va_b, va / 16, 2.0f);
    cudaMemsetAsync(va_c, 0xFF, va, cudaStreamLegacy);
    if (evict_from) read_kernel<<<4096, 256>>>(evict_from, 2 * l2 / 16, b.sink);
    sync();
  };
  auto va_add = [&] {
    add_kernel<<<4096, 256>>>(va_a, va_b, va_c, va / 16);
    sync();
  };
  std::vector<Scenario> scenarios = {
      {"clean_then_empty", clean, empty},
      {"dirty_then_empty", [&] { write(b.small, b.small_bytes); }, empty},
      {"clean_then_write", clean, [&] { write(b.small, b.small_bytes); }},
      {"clean_then_write_empty", clean, [&] { write(b.small, b.small_bytes); empty(); }},
      {"clean_then_copy128mb", clean, copy},
      {"dirtyprep_evict2x_then_copy128mb", [&] { harness_like(2); }, copy},
      {"dirtyprep_evict4x_then_copy128mb", [&] { harness_like(4); }, copy},
      {"memsetprep_evict2x_then_copy128mb", [&] { harness_like_memset(); }, copy},
      {"va_prep_evict_written_then_add", [&] { va_prep(b.scratch); }, va_add},
      {"va_prep_evict_unwritten_then_add", [&] { va_prep(b.unwritten); }, va_add},
      {"va_prep_no_evict_then_add", [&] { va_prep(nullptr); }, va_add},
  };
  std::map<std::string, std::vector<std::map<std::string, double>>> got;
  auto run = [&](kernelblaster::RangeProfiler& profiler, const std::string& config, const Scenario& s) {
    kernelblaster::RangeProfile r = profiler.profile(s.prepare, s.call);
    std::printf("{\"config\": \"%s\", \"scenario\": \"%s\", \"error\": \"%s\", \"ranges\": [", config.c_str(),
                s.name.c_str(), r.error.c_str());
    for (std::size_t i = 0; i < r.ranges.size(); ++i) {
      auto& m = r.ranges[i];
      std::printf("%s{\"duration_us\": %.3f, \"read_mb\": %.3f, \"write_mb\": %.3f, \"dram_pct\": %.2f}", i ? ", " : "",
                  m["gpu__time_duration.sum"] / 1e3, m["dram__bytes_read.sum"] / 1e6,
                  m["dram__bytes_write.sum"] / 1e6, m["dram__throughput.avg.pct_of_peak_sustained_elapsed"]);
    }
    std::printf("]}\n");
    std::fflush(stdout);
    got[config + "/" + s.name] = r.ranges;
  };
  for (const auto& [config, metrics] : configs) {
    kernelblaster::RangeProfiler profiler;
    std::string why;
    if (!profiler.prepare(0, metrics, 8, &why)) {
      std::fprintf(stderr, "profiler (%s): %s\n", config.c_str(), why.c_str());
      return 1;
    }
    for (const Scenario& s : scenarios) run(profiler, config, s);
  }
  // The same with the harness's CUPTI activity tracer on, as the profile pass
  // had it during the counted passes until 2026-11-21.
  {
    kernelblaster::ActivityTracer tracer;
    std::string why;
    if (!tracer.start(&why)) {
      std::fprintf(stderr, "tracer: %s\n", why.c_str());
      return 1;
    }
    kernelblaster::RangeProfiler profiler;
    if (!profiler.prepare(0, configs[1].second, 8, &why)) {
      std::fprintf(stderr, "profiler (cheap, traced): %s\n", why.c_str());
      return 1;
    }
    for (const Scenario& s : scenarios) run(profiler, "cheap+activity_tracer", s);
    std::vector<kernelblaster::GpuActivity> gpu;
    std::unordered_map<std::uint32_t, kernelblaster::ApiCall> api;
    tracer.drain(&gpu, &api);
    tracer.stop();
  }
  // Unprofiled references (events, best of 5): the small write, and the copy
  // after each prepare.
  auto best_us = [&](const std::function<void()>& prep, const std::function<void()>& launch) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e9f;
    for (int i = 0; i < 5; ++i) {
      prep();
      cudaEventRecord(e0);
      launch();
      cudaEventRecord(e1);
      sync();
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      best = std::min(best, ms);
    }
    return best * 1e3;
  };
  auto launch_copy = [&] { copy_kernel<<<4096, 256>>>(b.big, b.big + b.big_bytes / 32, b.big_bytes / 32); };
  std::printf("{\"unprofiled_us\": {\"write_small\": %.3f, \"copy_after_clean\": %.3f, \"copy_after_dirtyprep\": %.3f}}\n",
              best_us(clean, [&] { write_kernel<<<1024, 256>>>(b.small, b.small_bytes / 16, 1.0f); }),
              best_us(clean, launch_copy), best_us([&] { harness_like(2); }, launch_copy));
  std::fflush(stdout);

  // What the profile pass relies on (asserted, so a driver that changes it is
  // noticed): without activity tracing, a range counts the DRAM traffic of its
  // kernel as Nsight Compute does, and the harness's prepare leaves nothing
  // dirty for the next kernel to write back.
  auto write_mb = [&](const std::string& key) {
    return got[key].empty() ? -1.0 : got[key][0]["dram__bytes_write.sum"] / 1e6;
  };
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "FAILED: %s\n", what.c_str());
      ++failures;
    }
  };
  double small_mb = b.small_bytes / 1e6;
  for (const char* config : {"dram", "cheap", "full"}) {
    std::string c = config;
    expect(write_mb(c + "/clean_then_write") >= 0 && write_mb(c + "/clean_then_write") < 0.1 * small_mb,
           c + ": writes that stay in the L2 are not counted");
    double clean = write_mb(c + "/clean_then_copy128mb");
    double prepared = write_mb(c + "/memsetprep_evict2x_then_copy128mb");
    expect(clean > 0 && prepared > 0 && prepared < 1.05 * clean,
           c + ": the harness-like prepare adds no write-back to the next kernel");
  }
  return failures ? 1 : 0;
}
