// Adversarial candidate: other_stream
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     launches the real kernel on a non-blocking stream of its own and
//           returns at once. Non-blocking streams do not synchronize with the
//           legacy default stream, so a timer built from default-stream events
//           measures almost nothing; a later device-wide sync still makes the
//           output correct.
// Expected: untimed_work
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
  if (rows <= 0 || cols <= 0) return;
  static cudaStream_t side = [] {
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  softmax_rows_kernel<<<rows, 256, 0, side>>>(x, y, cols);
}
