// RMSNorm over the last dimension, fp16 in and out, fp32 accumulation.
// One block per row; the sum of squares is a shared-memory tree reduction.
#include <kbexamples/kernels.h>

// kernelblaster: tunable BLOCK_SIZE 32 64 128 256 512 1024 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256  // must be a power of two for the tree reduction
#endif

__global__ void rmsnorm_kernel(const __half* x, const __half* weight, __half* y, int cols, float eps) {
  __shared__ float red[BLOCK_SIZE];
  const __half* xr = x + (size_t)blockIdx.x * cols;
  __half* yr = y + (size_t)blockIdx.x * cols;
  int t = threadIdx.x;

  // Squares are summed in fp32: fp16 would overflow past ~256 and lose
  // precision long before that on wide rows.
  float ss = 0.0f;
  for (int c = t; c < cols; c += BLOCK_SIZE) {
    float v = __half2float(xr[c]);
    ss += v * v;
  }
  red[t] = ss;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float scale = rsqrtf(red[0] / cols + eps);

  for (int c = t; c < cols; c += BLOCK_SIZE) {
    float v = __half2float(xr[c]) * scale * __half2float(weight[c]);
    yr[c] = __float2half(v);
  }
}

void rmsnorm(const __half* x, const __half* weight, __half* y, int rows, int cols, float eps) {
  if (rows <= 0 || cols <= 0) return;
  rmsnorm_kernel<<<rows, BLOCK_SIZE>>>(x, weight, y, cols, eps);
}
