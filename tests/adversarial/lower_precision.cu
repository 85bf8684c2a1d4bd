// Adversarial candidate: lower_precision
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     rounds x and the row max to __half and takes hexp of the half
//           difference: half-width math, "close enough" to look right. Each
//           element is off by ~0.1-1% relative, far above fp32's tolerance
//           but nowhere near garbage.
// Expected: inaccurate
#include <kbexamples/kernels.h>

#include <cfloat>

__device__ float exp_via_half(float x, float row_max) {
  __half d = __hsub(__float2half(x), __float2half(row_max));
  return __half2float(hexp(d));
}

__global__ void softmax_rows_kernel(const float* x, float* y, int cols) {
  __shared__ float red[256];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  int t = threadIdx.x;
  float m = -FLT_MAX;
  for (int c = t; c < cols; c += 256) m = fmaxf(m, xr[c]);
  red[t] = m;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float row_max = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = t; c < cols; c += 256) sum += exp_via_half(xr[c], row_max);
  red[t] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = t; c < cols; c += 256) yr[c] = exp_via_half(xr[c], row_max) * inv;
}

void softmax_rows(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_rows_kernel<<<rows, 256>>>(x, y, cols);
}
