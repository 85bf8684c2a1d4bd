// Tiled fp32 matmul: each block computes a TILE x TILE tile of C, staging
// TILE x TILE tiles of A and B through shared memory. Extents need not be
// multiples of TILE: out-of-range tile elements are loaded as zero so they
// add nothing to the dot product.
#include <kbexamples/kernels.h>

// kernelblaster: tunable TILE 8 16 32 64 technique=block_size_adaptation
// kernelblaster: constraint TILE * TILE <= 1024
#ifndef TILE
#define TILE 16
#endif

__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    int ka = k0 + threadIdx.x;
    int kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();  // the tiles are overwritten by the next iteration
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0) return;
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
