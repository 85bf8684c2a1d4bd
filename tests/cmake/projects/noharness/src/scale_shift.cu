#include "scale_shift.h"

#ifndef THREADS
#define THREADS 128
#endif

__global__ void scale_shift_kernel(const float* x, float* y, float a, float b, std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

void scale_shift(const float* x, float* y, float a, float b, std::size_t n) {
  unsigned blocks = static_cast<unsigned>((n + THREADS - 1) / THREADS);
  scale_shift_kernel<<<blocks, THREADS>>>(x, y, a, b, n);
}
