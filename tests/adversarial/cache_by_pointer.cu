// Adversarial candidate: cache_by_pointer
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     remembers the input pointer, the shape and a copy of the last
//           output; a call with the same pointer and shape copies the saved
//           output instead of computing. Benchmarks that reuse one input buffer
//           for every timed run see a memcpy, not a softmax.
// Expected: cached_result (fresh inputs at the same address get stale answers)
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
  static const float* last_x = nullptr;
  static int last_rows = -1, last_cols = -1;
  static float* saved = nullptr;
  static size_t saved_capacity = 0;

  if (rows <= 0 || cols <= 0) return;
  size_t bytes = (size_t)rows * cols * sizeof(float);
  if (x == last_x && rows == last_rows && cols == last_cols) {
    cudaMemcpyAsync(y, saved, bytes, cudaMemcpyDeviceToDevice, 0);
    return;
  }
  softmax_rows_kernel<<<rows, 256>>>(x, y, cols);
  if (bytes > saved_capacity) {
    cudaFree(saved);
    cudaMalloc(&saved, bytes);
    saved_capacity = bytes;
  }
  cudaMemcpyAsync(saved, y, bytes, cudaMemcpyDeviceToDevice, 0);
  last_x = x;
  last_rows = rows;
  last_cols = cols;
}
