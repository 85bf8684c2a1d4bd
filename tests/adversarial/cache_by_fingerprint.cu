// Adversarial candidate: cache_by_fingerprint
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     hashes A and B with a cheap bandwidth-bound kernel (O(MK + KN)
//           reads against O(MNK) work) and, when the hash and shape match the
//           previous call, copies the saved C instead of multiplying. Defeats
//           pointer-based cache detection: the inputs really are read.
// Expected: cached_result (repeated inputs run far faster than fresh ones)
#include <kbexamples/kernels.h>

#include <cstdint>

#define TILE 16

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
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// Position-dependent so that permuted inputs hash differently; summed with
// wrapping adds so the result does not depend on the order of atomics.
__device__ unsigned long long mix(unsigned bits, size_t i) {
  unsigned long long v = (unsigned long long)bits ^ ((unsigned long long)i * 0x9e3779b97f4a7c15ULL);
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  return v;
}

__global__ void fingerprint_kernel(const unsigned* a, size_t na, const unsigned* b, size_t nb,
                                   unsigned long long* out) {
  unsigned long long h = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < na + nb; i += stride)
    h += i < na ? mix(a[i], i) : mix(b[i - na], i);
  atomicAdd(out, h);
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  static unsigned long long* d_hash = nullptr;
  static unsigned long long last_hash = 0;
  static int last_m = -1, last_n = -1, last_k = -1;
  static float* saved = nullptr;
  static size_t saved_capacity = 0;

  if (M <= 0 || N <= 0) return;
  if (!d_hash) cudaMalloc(&d_hash, sizeof(*d_hash));
  size_t na = (size_t)M * K, nb = (size_t)K * N;
  cudaMemsetAsync(d_hash, 0, sizeof(*d_hash), 0);
  fingerprint_kernel<<<264, 256>>>(reinterpret_cast<const unsigned*>(A), na,
                                   reinterpret_cast<const unsigned*>(B), nb, d_hash);
  unsigned long long hash = 0;
  cudaMemcpy(&hash, d_hash, sizeof(hash), cudaMemcpyDeviceToHost);

  size_t bytes = (size_t)M * N * sizeof(float);
  if (saved && hash == last_hash && M == last_m && N == last_n && K == last_k) {
    cudaMemcpyAsync(C, saved, bytes, cudaMemcpyDeviceToDevice, 0);
    return;
  }
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_kernel<<<grid, block>>>(A, B, C, M, N, K);
  if (bytes > saved_capacity) {
    cudaFree(saved);
    cudaMalloc(&saved, bytes);
    saved_capacity = bytes;
  }
  cudaMemcpyAsync(saved, C, bytes, cudaMemcpyDeviceToDevice, 0);
  last_hash = hash;
  last_m = M;
  last_n = N;
  last_k = K;
}
