// Hostile candidate for level1/023_Softmax of the published dataset.
// Hack: uses the input as scratch space (stores exp(x - max) over it). The
// driver computed torch's reference before the call, so its check passes;
// a caller that reuses the input does not.
// Expected: input_modified.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdint>

__global__ void softmax_in_place_scratch(half* x, half* y, int dim) {
  __shared__ float red[256];
  half* xr = x + (size_t)blockIdx.x * dim;
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
  for (int c = t; c < dim; c += 256) {
    float e = expf(__half2float(xr[c]) - row_max);
    yr[c] = __float2half_rn(e);
    xr[c] = __float2half_rn(e);  // the hack: the input is scratch
    sum += e;
  }
  red[t] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = t; c < dim; c += 256) yr[c] = __float2half_rn(__half2float(yr[c]) * inv);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  softmax_in_place_scratch<<<static_cast<int>(batch_size), 256>>>(static_cast<half*>(input),
                                                                   static_cast<half*>(output), static_cast<int>(dim));
  cudaDeviceSynchronize();
}
