// The honest part every level1/001_Square_matrix_multiplication hostile
// candidate shares: C = A * B for N x N half matrices, fp32 accumulation,
// 16x16 shared-memory tiles (correct at any N, not fast), and the device
// helpers the result caches key on. Included by the candidates beside it
// (the scripted LLM inlines it into its replies).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

#define MM_TILE 16

__global__ void honest_matmul_f16(const half* A, const half* B, half* C, int n) {
  __shared__ float As[MM_TILE][MM_TILE];
  __shared__ float Bs[MM_TILE][MM_TILE];
  int row = blockIdx.y * MM_TILE + threadIdx.y;
  int col = blockIdx.x * MM_TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += MM_TILE) {
    int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ka < n) ? __half2float(A[(size_t)row * n + ka]) : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < n && col < n) ? __half2float(B[(size_t)kb * n + col]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < MM_TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[(size_t)row * n + col] = __float2half(acc);
}

static void honest_multiply(void* C, const void* A, const void* B, int64_t n) {
  dim3 block(MM_TILE, MM_TILE);
  dim3 grid((unsigned)((n + MM_TILE - 1) / MM_TILE), (unsigned)((n + MM_TILE - 1) / MM_TILE));
  honest_matmul_f16<<<grid, block>>>(static_cast<const half*>(A), static_cast<const half*>(B), static_cast<half*>(C),
                                     (int)n);
}

// 64 elements of each input at evenly spaced places: a cheap fingerprint.
__global__ void sample_inputs(const unsigned short* a, const unsigned short* b, size_t count, unsigned short* out) {
  int i = threadIdx.x;
  if (i < 64) {
    size_t at = (size_t)i * (count / 64);
    out[i] = a[at];
    out[64 + i] = b[at];
  }
}

// Order-independent, position-dependent 64-bit sum over every word of both inputs.
__global__ void checksum_inputs(const unsigned* a, const unsigned* b, size_t words, unsigned long long* out) {
  unsigned long long h = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < 2 * words; i += stride) {
    unsigned long long v = (unsigned long long)(i < words ? a[i] : b[i - words]) ^ (i * 0x9e3779b97f4a7c15ULL);
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    h += v ^ (v >> 29);
  }
  atomicAdd(out, h);
}
