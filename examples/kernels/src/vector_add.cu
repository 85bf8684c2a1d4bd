// Elementwise vector add: one thread per element, or per vector of elements.
#include <kbexamples/kernels.h>

#include <cstddef>
#include <cstdint>

// kernelblaster: tunable BLOCK_SIZE 64 128 256 512 1024 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

// Bytes per global load and store. 4 is one float: the plain scalar code.
// kernelblaster: tunable VEC_BYTES 4 8 16 technique=vectorized_memory_access
#ifndef VEC_BYTES
#define VEC_BYTES 4
#endif

// kernelblaster: flags dlcm=cg

static_assert(VEC_BYTES == 4 || VEC_BYTES == 8 || VEC_BYTES == 16, "VEC_BYTES: 4, 8 or 16");

namespace {

// V floats moved by one instruction: the alignment makes nvcc emit one
// 8- or 16-byte load or store for a copy of the whole struct.
template <int V>
struct alignas(V * sizeof(float)) FloatVec {
  float v[V];
};

// Thread i adds elements [i*V, i*V + V). The thread just past the last whole
// vector adds the remaining n % V elements one at a time. V == 1 is the
// plain one-element-per-thread kernel.
template <int V>
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int whole = n / V;
  if (i < whole) {
    FloatVec<V> x = reinterpret_cast<const FloatVec<V>*>(a)[i];
    FloatVec<V> y = reinterpret_cast<const FloatVec<V>*>(b)[i];
    FloatVec<V> z;
#pragma unroll
    for (int k = 0; k < V; ++k) z.v[k] = x.v[k] + y.v[k];
    reinterpret_cast<FloatVec<V>*>(c)[i] = z;
  } else if (V > 1 && i == whole) {
    for (int e = whole * V; e < n; ++e) c[e] = a[e] + b[e];
  }
}

bool aligned_to(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  constexpr int kVec = VEC_BYTES / sizeof(float);
  // A wide access needs every pointer aligned to its width; otherwise the
  // scalar kernel runs, so any pointer the caller passes stays correct.
  if (kVec > 1 && aligned_to(a, VEC_BYTES) && aligned_to(b, VEC_BYTES) && aligned_to(c, VEC_BYTES)) {
    int threads = n / kVec + (n % kVec != 0);  // whole vectors, plus one for the tail
    int blocks = (threads + BLOCK_SIZE - 1) / BLOCK_SIZE;
    vector_add_kernel<kVec><<<blocks, BLOCK_SIZE>>>(a, b, c, n);
    return;
  }
  int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
  vector_add_kernel<1><<<blocks, BLOCK_SIZE>>>(a, b, c, n);
}
