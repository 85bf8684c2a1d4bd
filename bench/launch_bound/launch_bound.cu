// Is a loop of short kernel launches paced by the kernels or by the host?
//
// Issue 38's transpose target: the tuned cuda-samples transpose (8 rows a
// block instead of 16) runs each kernel 10-25% faster in the harness, and the
// sample's own figure, CUDA events around 100 back-to-back launches, moves
// 1.006x. This program times the same kind of loop four ways, for the tile
// kernels of bench/ab_program/tile_kernels.cuh (a tiled copy and a
// shared-memory transpose, 1024x1024 floats, 32x32 tiles) at 16 and 8 rows
// a block:
//
//   loop      events around 100 launches, as the sample times them
//   host      the host's own time to issue those 100 launches (no wait)
//   queued    the same 100 launches queued behind a 5 ms spin kernel, so
//             the host has issued them all before the first one runs: the
//             GPU's own back-to-back pace
//   alone     events around one launch, median of 200
//
// and an empty kernel of the same grid, whose loop time is the host's launch
// pace alone. If `loop` sits at `host` and above `queued`, the loop waits on
// its launches, and a faster kernel cannot shorten it.
//
//   nvcc -O3 -arch=sm_90 launch_bound.cu -o launch_bound && ./launch_bound
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../ab_program/tile_kernels.cuh"

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));            \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kN = 1024;
constexpr int kReps = 100;

__global__ void empty_kernel(float*, const float*, int) {}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

struct Times {
  double loop_us, host_us, queued_us, alone_us;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `launch()` launches the kernel once.
template <typename Launch>
Times time_kernel(Launch launch, long long spin_cycles) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> loop, host, queued, alone;
  for (int trial = 0; trial < 15; ++trial) {
    // As the sample: one warm-up launch, then 100 timed back to back.
    launch();
    CHECK(cudaEventRecord(a, 0));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kReps; ++i) {
      launch();
      CHECK(cudaGetLastError());
    }
    const auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaEventRecord(b, 0));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    loop.push_back(ms * 1e3 / kReps);
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kReps);

    // Queued behind a spin: every launch is issued before the first runs.
    spin<<<1, 1>>>(spin_cycles);
    CHECK(cudaEventRecord(a, 0));
    for (int i = 0; i < kReps; ++i) launch();
    CHECK(cudaEventRecord(b, 0));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    queued.push_back(ms * 1e3 / kReps);
  }
  for (int i = 0; i < 200; ++i) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(a, 0));
    launch();
    CHECK(cudaEventRecord(b, 0));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    alone.push_back(ms * 1e3);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return {median(loop), median(host), median(queued), median(alone)};
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const long long spin_cycles = static_cast<long long>(clock_khz) * 5;  // about 5 ms
  std::printf("device: %s\n", prop.name);
  float *in, *out;
  CHECK(cudaMalloc(&in, sizeof(float) * kN * kN));
  CHECK(cudaMalloc(&out, sizeof(float) * kN * kN));
  CHECK(cudaMemset(in, 0, sizeof(float) * kN * kN));
  const dim3 grid(kN / kTile, kN / kTile), rows16(kTile, 16), rows8(kTile, 8);
  struct Case {
    const char* name;
    int rows;
    void (*launch)(dim3, dim3, float*, const float*);
  } cases[] = {
      {"empty", 16, [](dim3 g, dim3 b, float* o, const float* i) { empty_kernel<<<g, b>>>(o, i, kN); }},
      {"empty", 8, [](dim3 g, dim3 b, float* o, const float* i) { empty_kernel<<<g, b>>>(o, i, kN); }},
      {"copy", 16, [](dim3 g, dim3 b, float* o, const float* i) { tiled_copy<16><<<g, b>>>(o, i, kN); }},
      {"copy", 8, [](dim3 g, dim3 b, float* o, const float* i) { tiled_copy<8><<<g, b>>>(o, i, kN); }},
      {"transpose", 16, [](dim3 g, dim3 b, float* o, const float* i) { tiled_transpose<16><<<g, b>>>(o, i, kN, kN); }},
      {"transpose", 8, [](dim3 g, dim3 b, float* o, const float* i) { tiled_transpose<8><<<g, b>>>(o, i, kN, kN); }}};
  std::printf("%-10s %5s %9s %9s %9s %9s  (us a launch, medians)\n", "kernel", "rows", "loop", "host", "queued",
              "alone");
  // Twice through, so the second pass shows the first's order did not matter.
  for (int pass = 0; pass < 2; ++pass)
    for (const Case& c : cases) {
      const dim3 block = c.rows == 16 ? rows16 : rows8;
      const Times t = time_kernel([&] { c.launch(grid, block, out, in); }, spin_cycles);
      std::printf("%-10s %5d %9.3f %9.3f %9.3f %9.3f\n", c.name, c.rows, t.loop_us, t.host_us, t.queued_us,
                  t.alone_us);
    }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return 0;
}
