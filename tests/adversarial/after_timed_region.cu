// Adversarial candidate: after_timed_region
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     returns immediately and leaves the work to a detached host thread
//           that waits ~2 ms, then launches the real kernel and synchronizes.
//           The timed region is empty; the output appears only later, if at all.
// Expected: untimed_work only (the runtime sees a kernel launched by another
//           thread outside every launcher call, and that judge runs before
//           the outputs are compared).
#include <kbexamples/kernels.h>

#include <cfloat>
#include <chrono>
#include <thread>

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
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    softmax_rows_kernel<<<rows, 256>>>(x, y, cols);
    cudaDeviceSynchronize();
  }).detach();
}
