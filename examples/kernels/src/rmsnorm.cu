// RMSNorm over the last dimension, fp16 in and out, fp32 accumulation.
// One block per row; the sum of squares is a shared-memory tree reduction.
#include <kbexamples/kernels.h>

#include <cstddef>
#include <cstdint>

// kernelblaster: tunable BLOCK_SIZE 32 64 128 256 512 1024 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256  // must be a power of two for the tree reduction
#endif

// Bytes per global load and store. 2 is one __half: the plain scalar code.
// kernelblaster: tunable VEC_BYTES 2 4 8 16 technique=vectorized_memory_access
#ifndef VEC_BYTES
#define VEC_BYTES 2
#endif

// kernelblaster: flags fast_math maxrregcount=64

static_assert(VEC_BYTES == 2 || VEC_BYTES == 4 || VEC_BYTES == 8 || VEC_BYTES == 16, "VEC_BYTES: 2, 4, 8 or 16");

namespace {

// V halves moved by one instruction: the alignment makes nvcc emit one 4-,
// 8- or 16-byte load or store for a copy of the whole struct.
template <int V>
struct alignas(V * sizeof(__half)) HalfVec {
  __half v[V];
};

// Each thread walks the row in vectors of V halves. The launcher guarantees
// that every row and the weight start V-half aligned and that cols % V == 0,
// so there is no tail. V == 1 is the plain one-half-per-access kernel; every
// element is still converted and scaled in fp32 on its own.
template <int V>
__global__ void rmsnorm_kernel(const __half* x, const __half* weight, __half* y, int cols, float eps) {
  __shared__ float red[BLOCK_SIZE];
  const HalfVec<V>* xr = reinterpret_cast<const HalfVec<V>*>(x + (size_t)blockIdx.x * cols);
  const HalfVec<V>* wv = reinterpret_cast<const HalfVec<V>*>(weight);
  HalfVec<V>* yr = reinterpret_cast<HalfVec<V>*>(y + (size_t)blockIdx.x * cols);
  int vecs = cols / V;
  int t = threadIdx.x;

  // Squares are summed in fp32: fp16 would overflow past ~256 and lose
  // precision long before that on wide rows.
  float ss = 0.0f;
  for (int c = t; c < vecs; c += BLOCK_SIZE) {
    HalfVec<V> p = xr[c];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      float v = __half2float(p.v[k]);
      ss += v * v;
    }
  }
  red[t] = ss;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float scale = rsqrtf(red[0] / cols + eps);

  for (int c = t; c < vecs; c += BLOCK_SIZE) {
    HalfVec<V> p = xr[c];
    HalfVec<V> w = wv[c];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      float v = __half2float(p.v[k]) * scale * __half2float(w.v[k]);
      p.v[k] = __float2half(v);
    }
    yr[c] = p;
  }
}

bool aligned_to(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace

void rmsnorm(const __half* x, const __half* weight, __half* y, int rows, int cols, float eps) {
  if (rows <= 0 || cols <= 0) return;
  constexpr int kVec = VEC_BYTES / sizeof(__half);
  // Wide accesses need every row start and the weight aligned to VEC_BYTES:
  // aligned bases and a row length in bytes that is a multiple of it.
  // Otherwise the scalar kernel runs, so any shape stays correct.
  if (kVec > 1 && cols % kVec == 0 && aligned_to(x, VEC_BYTES) && aligned_to(weight, VEC_BYTES) &&
      aligned_to(y, VEC_BYTES)) {
    rmsnorm_kernel<kVec><<<rows, BLOCK_SIZE>>>(x, weight, y, cols, eps);
    return;
  }
  rmsnorm_kernel<1><<<rows, BLOCK_SIZE>>>(x, weight, y, cols, eps);
}
