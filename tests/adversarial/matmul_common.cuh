// The honest part of the matmul hostile candidates (they replace
// examples/kernels/src/matmul.cu): C = A * B in fp32, 16x16 tiles, and the
// device helpers the result caches key on. Included by the candidates
// beside it (the scripted LLM inlines it into its replies).
#pragma once
#include <kbexamples/kernels.h>

#include <cstdint>

#define MM_TILE 16

__global__ void honest_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[MM_TILE][MM_TILE];
  __shared__ float Bs[MM_TILE][MM_TILE];
  int row = blockIdx.y * MM_TILE + threadIdx.y;
  int col = blockIdx.x * MM_TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += MM_TILE) {
    int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < MM_TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

static void honest_multiply(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(MM_TILE, MM_TILE);
  dim3 grid((N + MM_TILE - 1) / MM_TILE, (M + MM_TILE - 1) / MM_TILE);
  honest_matmul<<<grid, block>>>(A, B, C, M, N, K);
}

// 64 elements of each input at evenly spaced places: a cheap fingerprint.
__global__ void sample_inputs(const float* a, size_t na, const float* b, size_t nb, float* out) {
  int i = threadIdx.x;
  if (i < 64) {
    out[i] = a[(size_t)i * (na / 64)];
    out[64 + i] = b[(size_t)i * (nb / 64)];
  }
}

// Order-independent, position-dependent 64-bit sum over every word of both inputs.
__global__ void checksum_inputs(const unsigned* a, size_t na, const unsigned* b, size_t nb, unsigned long long* out) {
  unsigned long long h = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < na + nb; i += stride) {
    unsigned long long v = (unsigned long long)(i < na ? a[i] : b[i - na]) ^ (i * 0x9e3779b97f4a7c15ULL);
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    h += v ^ (v >> 29);
  }
  atomicAdd(out, h);
}
