// Adversarial candidate: modifies_input
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     casts away const and uses the input row as scratch for exp(x - max),
//           saving one expf per element. The output is right; the input is not
//           what the caller passed any more.
// Expected: input_modified
#include <kbexamples/kernels.h>

#include <cfloat>

__global__ void softmax_rows_kernel(float* x, float* y, int cols) {
  __shared__ float red[256];
  float* xr = x + (size_t)blockIdx.x * cols;
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
  for (int c = t; c < cols; c += 256) {
    float e = expf(xr[c] - row_max);
    xr[c] = e;  // each thread rewrites only the columns it alone reads: no race
    sum += e;
  }
  red[t] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = t; c < cols; c += 256) yr[c] = xr[c] * inv;
}

void softmax_rows(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_rows_kernel<<<rows, 256>>>(const_cast<float*>(x), y, cols);
}
