// Hostile candidate for level1/023_Softmax of the published dataset.
// Hack: computes the first half of the rows only. The driver fills the
// output with 12345.0 first, so its own check catches this; a driver that
// used torch::zeros would not, and KernelBlaster poisons outputs either way.
// Expected: unwritten_output.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdint>

__global__ void softmax_rows(const half* x, half* y, int dim) {
  __shared__ float red[256];
  const half* xr = x + (size_t)blockIdx.x * dim;
  half* yr = y + (size_t)blockIdx.x * dim;
  int t = threadIdx.x;
  float m = -FLT_MAX;
  for (int c = t; c < dim; c += 256) m = fmaxf(m, __half2float(xr[c]));
  red[t] = m;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float row_max = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = t; c < dim; c += 256) sum += expf(__half2float(xr[c]) - row_max);
  red[t] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = t; c < dim; c += 256) yr[c] = __float2half_rn(expf(__half2float(xr[c]) - row_max) * inv);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  int rows = static_cast<int>(batch_size / 2);
  softmax_rows<<<rows, 256>>>(static_cast<const half*>(input), static_cast<half*>(output), static_cast<int>(dim));
  cudaDeviceSynchronize();
}
