#include "sample/kernels.h"
#include "detail.cuh"

__global__ void scale_kernel(const float* x, float* y, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * factor;
}

void scale(const float* x, float* y, float factor, int n) {
  scale_kernel<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, y, factor, n);
}
