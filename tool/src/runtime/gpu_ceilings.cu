#include "runtime/gpu_ceilings.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kernelblaster {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

constexpr int kChains = 8;  // independent FMA chains per thread: enough to hide the pipe latency

__global__ void fp32_fma_kernel(float* out, int iters, float seed) {
  float a[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) a[c] = seed + threadIdx.x + c;
  const float m = 0.9999f, k = 1e-4f;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) a[c] = fmaf(a[c], m, k);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += a[c];
  if (s == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the work observable
}

__global__ void fp16_fma_kernel(float* out, int iters, float seed) {
  __half2 a[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) a[c] = __floats2half2_rn(seed + c * 0.01f, seed - c * 0.01f);
  const __half2 m = __floats2half2_rn(0.999f, 0.999f), k = __floats2half2_rn(1e-3f, 1e-3f);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) a[c] = __hfma2(a[c], m, k);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += __low2float(a[c]) + __high2float(a[c]);
  if (s == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Each warp issues mma.m16n8k16 (f16 x f16 -> f32): 2*16*8*16 = 4096 FLOP.
__global__ void tensor_mma_kernel(float* out, int iters, unsigned seed) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned a0 = seed ^ threadIdx.x, a1 = a0 * 3u, a2 = a0 * 5u, a3 = a0 * 7u;
  unsigned b0 = seed + threadIdx.x, b1 = b0 * 11u;
  float acc[kChains][4] = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
#endif
}

// Best time in ms of `reps` runs of `launch`, after one warm-up.
template <class F>
float best_ms(F launch, int reps = 5) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  launch();
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "warm-up");
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(a), "event");
    launch();
    check(cudaEventRecord(b), "event");
    check(cudaEventSynchronize(b), "run");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "event time");
    best = std::min(best, ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best;
}

}  // namespace

MeasuredCeilings measure_ceilings(int device) {
  check(cudaSetDevice(device), "select device");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "device properties");
  MeasuredCeilings m;

  // Copy: far larger than the L2, so every byte crosses DRAM.
  size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "memory info");
  size_t bytes = std::min<size_t>(size_t(1) << 30, free_b / 4) & ~size_t(255);
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "copy source");
  check(cudaMalloc(&dst, bytes), "copy destination");
  check(cudaMemset(src, 1, bytes), "fill");
  float ms = best_ms([&] { cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice); });
  m.copy_memcpy_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
  size_t n4 = bytes / sizeof(float4);
  int blocks = p.multiProcessorCount * 8;
  ms = best_ms([&] { copy_kernel<<<blocks, 512>>>(static_cast<const float4*>(src), static_cast<float4*>(dst), n4); });
  m.copy_kernel_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
  cudaFree(src);
  cudaFree(dst);

  float* out = nullptr;
  int threads = 256, grid = p.multiProcessorCount * 16;
  check(cudaMalloc(&out, sizeof(float) * threads * grid), "output");
  const int iters = 4096;
  double lanes = static_cast<double>(threads) * grid;
  ms = best_ms([&] { fp32_fma_kernel<<<grid, threads>>>(out, iters, 1.0f); });
  m.fp32_gflops = lanes * iters * kChains * 2.0 / (ms * 1e-3) / 1e9;
  ms = best_ms([&] { fp16_fma_kernel<<<grid, threads>>>(out, iters, 1.0f); });
  m.fp16_gflops = lanes * iters * kChains * 4.0 / (ms * 1e-3) / 1e9;
  if (p.major >= 8) {
    const int mma_iters = 2048;
    double warps = lanes / 32.0;
    ms = best_ms([&] { tensor_mma_kernel<<<grid, threads>>>(out, mma_iters, 7u); });
    m.tensor_gflops = warps * mma_iters * kChains * 4096.0 / (ms * 1e-3) / 1e9;
  }
  cudaFree(out);
  return m;
}

}  // namespace kernelblaster
