// The definitions reach this file unchanged, or it does not compile.
#include "awkward.h"

static_assert(sizeof(GREETING) == 3, "GREETING must be \"hi\"");

__global__ void scale_kernel(const float* x, float* y, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * factor;
}

void scale(const float* x, float* y, float factor, int n) {
  scale_kernel<<<(n + 255) / 256, 256>>>(x, y, factor, n);
}
