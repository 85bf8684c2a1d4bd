// The library's kernels, defined in a header that the library and the
// program both include (a template, and a static kernel: one copy per
// translation unit).
#pragma once
#include <cuda_runtime.h>

// Naive transpose: reads coalesced, writes strided by `rows`.
template <int TILE>
__global__ void transpose_tiles(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

static __global__ void add_bias(const float* in, float* out, int n, float bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias;
}
