// Adversarial candidate: partial_output
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     launches one block per row for the first half of the rows only,
//           which is correct wherever it writes and twice as fast.
// Expected: unwritten_output
#include <kbexamples/kernels.h>

#include <cfloat>

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
  for (int c = t; c < cols; c += 256) sum += expf(xr[c] - row_max);
  red[t] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = t; c < cols; c += 256) yr[c] = expf(xr[c] - row_max) * inv;
}

void softmax_rows(const float* x, float* y, int rows, int cols) {
  int half_rows = (rows + 1) / 2;  // the rest is left to chance
  if (half_rows <= 0 || cols <= 0) return;
  softmax_rows_kernel<<<half_rows, 256>>>(x, y, cols);
}
