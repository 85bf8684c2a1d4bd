// Row-wise softmax, one block per row.
//
// Three passes over the row (max, sum of exponentials, normalize), each a
// plain shared-memory tree reduction. Subtracting the row max first keeps
// expf from overflowing for large inputs.
#include <kbexamples/kernels.h>

#include <cfloat>

// kernelblaster: tunable BLOCK_SIZE 32 64 128 256 512 1024 technique=block_size_adaptation
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256  // must be a power of two for the tree reduction
#endif

__global__ void softmax_rows_kernel(const float* x, float* y, int cols) {
  __shared__ float red[BLOCK_SIZE];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  int t = threadIdx.x;

  float m = -FLT_MAX;
  for (int c = t; c < cols; c += BLOCK_SIZE) m = fmaxf(m, xr[c]);
  red[t] = m;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float row_max = red[0];
  __syncthreads();  // everyone has read red[0] before it is reused

  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK_SIZE) sum += expf(xr[c] - row_max);
  red[t] = sum;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];

  for (int c = t; c < cols; c += BLOCK_SIZE) yr[c] = expf(xr[c] - row_max) * inv;
}

void softmax_rows(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_rows_kernel<<<rows, BLOCK_SIZE>>>(x, y, cols);
}
