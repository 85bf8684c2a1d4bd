// Row-wise softmax, one block per row.
//
// Three passes over the row (max, sum of exponentials, normalize), each a
// plain shared-memory tree reduction. Subtracting the row max first keeps
// expf from overflowing for large inputs.
#include <kbexamples/kernels.h>

#include <cfloat>
#include <cstddef>
#include <cstdint>

// kernelblaster: tunable BLOCK_SIZE 32 64 128 256 512 1024 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256  // must be a power of two for the tree reduction
#endif

// Bytes per global load and store. 4 is one float: the plain scalar code.
// kernelblaster: tunable VEC_BYTES 4 8 16 technique=vectorized_memory_access
#ifndef VEC_BYTES
#define VEC_BYTES 4
#endif

// kernelblaster: flags fast_math maxrregcount=64

static_assert(VEC_BYTES == 4 || VEC_BYTES == 8 || VEC_BYTES == 16, "VEC_BYTES: 4, 8 or 16");

namespace {

// V floats moved by one instruction: the alignment makes nvcc emit one
// 8- or 16-byte load or store for a copy of the whole struct.
template <int V>
struct alignas(V * sizeof(float)) FloatVec {
  float v[V];
};

// Each thread walks the row in vectors of V floats. The launcher guarantees
// that every row starts V-float aligned and that cols % V == 0, so there is
// no tail. V == 1 is the plain one-float-per-access kernel.
template <int V>
__global__ void softmax_rows_kernel(const float* x, float* y, int cols) {
  __shared__ float red[BLOCK_SIZE];
  const FloatVec<V>* xr = reinterpret_cast<const FloatVec<V>*>(x + (size_t)blockIdx.x * cols);
  FloatVec<V>* yr = reinterpret_cast<FloatVec<V>*>(y + (size_t)blockIdx.x * cols);
  int vecs = cols / V;
  int t = threadIdx.x;

  float m = -FLT_MAX;
  for (int c = t; c < vecs; c += BLOCK_SIZE) {
    FloatVec<V> p = xr[c];
#pragma unroll
    for (int k = 0; k < V; ++k) m = fmaxf(m, p.v[k]);
  }
  red[t] = m;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float row_max = red[0];
  __syncthreads();  // everyone has read red[0] before it is reused

  float sum = 0.0f;
  for (int c = t; c < vecs; c += BLOCK_SIZE) {
    FloatVec<V> p = xr[c];
#pragma unroll
    for (int k = 0; k < V; ++k) sum += expf(p.v[k] - row_max);
  }
  red[t] = sum;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];

  for (int c = t; c < vecs; c += BLOCK_SIZE) {
    FloatVec<V> p = xr[c];
#pragma unroll
    for (int k = 0; k < V; ++k) p.v[k] = expf(p.v[k] - row_max) * inv;
    yr[c] = p;
  }
}

bool aligned_to(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace

void softmax_rows(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  constexpr int kVec = VEC_BYTES / sizeof(float);
  // Wide accesses need every row start aligned to VEC_BYTES: aligned bases
  // and a row length in bytes that is a multiple of it. Otherwise the scalar
  // kernel runs, so any shape stays correct.
  if (kVec > 1 && cols % kVec == 0 && aligned_to(x, VEC_BYTES) && aligned_to(y, VEC_BYTES)) {
    softmax_rows_kernel<kVec><<<rows, BLOCK_SIZE>>>(x, y, cols);
    return;
  }
  softmax_rows_kernel<1><<<rows, BLOCK_SIZE>>>(x, y, cols);
}
