// A launcher a program calls thousands of times, each with a new shape:
// what the recording shim costs a plain run (issue 72). Built once as it
// is and once with the shim in its place (run.sh).
#include <cuda_runtime.h>

__global__ void scale_kernel(float* y, const float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

void scale(float* y, const float* x, float a, int n) {
  scale_kernel<<<(n + 255) / 256, 256>>>(y, x, a, n);
}
