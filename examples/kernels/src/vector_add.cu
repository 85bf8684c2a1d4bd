// Elementwise vector add: one thread per element.
#include <kbexamples/kernels.h>

// kernelblaster: tunable BLOCK_SIZE 64 128 256 512 1024 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
  vector_add_kernel<<<blocks, BLOCK_SIZE>>>(a, b, c, n);
}
