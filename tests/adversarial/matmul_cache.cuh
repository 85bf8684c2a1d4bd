// A result cache for examples/kernels/src/matmul.cu: when the key of a call
// matches one it answered before, the C it saved then is copied instead of
// multiplying.
//   CACHE_KEY      1: the pointers and the shape
//                  2: the pointers, the shape and a 64-element sample of each input
//                  3: the shape and a checksum over every byte of both inputs
//   CACHE_ENTRIES  how many answers it keeps (oldest replaced first)
// Included by matmul_cache_<key>_<entries>.cu, which set both.
#pragma once
#include "matmul_common.cuh"

#include <cstring>

struct CacheEntry {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int m = -1, n = -1, k = -1;
  float sample[128] = {};
  unsigned long long checksum = 0;
  float* saved = nullptr;
  size_t capacity = 0;
};

static void cache_key(CacheEntry* e, const float* A, const float* B, float* C, int M, int N, int K) {
  e->a = A;
  e->b = B;
  e->c = C;
  e->m = M;
  e->n = N;
  e->k = K;
  if (CACHE_KEY == 2) {
    static float* d_sample = nullptr;
    if (!d_sample) cudaMalloc(&d_sample, sizeof(e->sample));
    sample_inputs<<<1, 64>>>(A, (size_t)M * K, B, (size_t)K * N, d_sample);
    cudaMemcpy(e->sample, d_sample, sizeof(e->sample), cudaMemcpyDeviceToHost);
  }
  if (CACHE_KEY == 3) {
    static unsigned long long* d_sum = nullptr;
    if (!d_sum) cudaMalloc(&d_sum, sizeof(*d_sum));
    cudaMemset(d_sum, 0, sizeof(*d_sum));
    checksum_inputs<<<264, 256>>>(reinterpret_cast<const unsigned*>(A), (size_t)M * K,
                                  reinterpret_cast<const unsigned*>(B), (size_t)K * N, d_sum);
    cudaMemcpy(&e->checksum, d_sum, sizeof(e->checksum), cudaMemcpyDeviceToHost);
  }
}

static bool same_key(const CacheEntry& x, const CacheEntry& y) {
  if (x.m != y.m || x.n != y.n || x.k != y.k) return false;
  if (CACHE_KEY == 3) return x.checksum == y.checksum;
  if (x.a != y.a || x.b != y.b || x.c != y.c) return false;
  return CACHE_KEY != 2 || std::memcmp(x.sample, y.sample, sizeof(x.sample)) == 0;
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  static CacheEntry cache[CACHE_ENTRIES];
  static int next = 0;
  if (M <= 0 || N <= 0) return;
  const size_t bytes = (size_t)M * N * sizeof(float);
  CacheEntry key;
  cache_key(&key, A, B, C, M, N, K);
  for (CacheEntry& e : cache)
    if (e.saved && same_key(e, key)) {
      cudaMemcpyAsync(C, e.saved, bytes, cudaMemcpyDeviceToDevice, 0);
      return;
    }
  honest_multiply(A, B, C, M, N, K);
  CacheEntry& slot = cache[next++ % CACHE_ENTRIES];
  float* saved = slot.saved;
  size_t capacity = slot.capacity;
  if (capacity < bytes) {
    cudaFree(saved);
    cudaMalloc(&saved, bytes);
    capacity = bytes;
  }
  slot = key;
  slot.saved = saved;
  slot.capacity = capacity;
  cudaMemcpyAsync(slot.saved, C, bytes, cudaMemcpyDeviceToDevice, 0);
}
