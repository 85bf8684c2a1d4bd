// Is a loop of short kernel launches paced by the kernels or by the host?
//
// Issue 38's transpose target: the tuned cuda-samples transpose (8 rows a
// block instead of 16) runs each kernel 10-25% faster in the harness, and the
// sample's own figure, CUDA events around 100 back-to-back launches, moves
// 1.006x. This program times the same kind of loop four ways, for two tile
// kernels written here (a tile copy and a shared-memory transpose, 1024x1024
// floats, 32x32 tiles) at 16 and 8 rows a block:
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

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));            \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kTile = 32;
constexpr int kN = 1024;
constexpr int kReps = 100;

template <int Rows>
__global__ void tile_copy(float* out, const float* in, int n) {
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row0 = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += Rows) out[(row0 + r) * n + col] = in[(row0 + r) * n + col];
}

template <int Rows>
__global__ void tile_transpose(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  int col = blockIdx.x * kTile + threadIdx.x;
  int row0 = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += Rows) tile[threadIdx.y + r][threadIdx.x] = in[(row0 + r) * n + col];
  __syncthreads();
  col = blockIdx.y * kTile + threadIdx.x;
  row0 = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += Rows) out[(row0 + r) * n + col] = tile[threadIdx.x][threadIdx.y + r];
}

__global__ void empty_kernel(float*, const float*, int) {}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

using Kernel = void (*)(float*, const float*, int);

struct Times {
  double loop_us, host_us, queued_us, alone_us;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Times time_kernel(Kernel k, dim3 block, float* out, const float* in, long long spin_cycles) {
  const dim3 grid(kN / kTile, kN / kTile);
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> loop, host, queued, alone;
  for (int trial = 0; trial < 15; ++trial) {
    // As the sample: one warm-up launch, then 100 timed back to back.
    k<<<grid, block>>>(out, in, kN);
    CHECK(cudaEventRecord(a, 0));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kReps; ++i) {
      k<<<grid, block>>>(out, in, kN);
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
    for (int i = 0; i < kReps; ++i) k<<<grid, block>>>(out, in, kN);
    CHECK(cudaEventRecord(b, 0));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    queued.push_back(ms * 1e3 / kReps);
  }
  for (int i = 0; i < 200; ++i) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(a, 0));
    k<<<grid, block>>>(out, in, kN);
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
  struct Case {
    const char* name;
    Kernel k;
    int rows;
  } cases[] = {{"empty", empty_kernel, 16},          {"empty", empty_kernel, 8},
               {"copy", tile_copy<16>, 16},          {"copy", tile_copy<8>, 8},
               {"transpose", tile_transpose<16>, 16}, {"transpose", tile_transpose<8>, 8}};
  std::printf("%-10s %5s %9s %9s %9s %9s  (us a launch, medians)\n", "kernel", "rows", "loop", "host", "queued",
              "alone");
  // Twice through, so the second pass shows the first's order did not matter.
  for (int pass = 0; pass < 2; ++pass)
    for (const Case& c : cases) {
      const Times t = time_kernel(c.k, dim3(kTile, c.rows), out, in, spin_cycles);
      std::printf("%-10s %5d %9.3f %9.3f %9.3f %9.3f\n", c.name, c.rows, t.loop_us, t.host_us, t.queued_us,
                  t.alone_us);
    }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return 0;
}
