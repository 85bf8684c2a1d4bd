// Streaming kernels the GPU probes profile: each touches a known number of
// bytes, so what a CUPTI range counts can be checked against it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace kernelblaster::probe {

__global__ void empty_kernel() {}

// Writes v to n float4.
__global__ void write_kernel(float4* p, std::size_t n, float v) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = make_float4(v, v, v, v);
}

// Reads n uint4 through the L2 (not L1): the harness's read-only eviction.
__global__ void read_kernel(const uint4* p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    uint4 v = __ldcg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads alive
}

// c = a + b over n float4: vector_add's shape (two inputs read, one output).
__global__ void add_kernel(const float4* a, const float4* b, float4* c, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// Copies n float4 from src to dst (reads and writes the same number of bytes).
__global__ void copy_kernel(const float4* src, float4* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

}  // namespace kernelblaster::probe
