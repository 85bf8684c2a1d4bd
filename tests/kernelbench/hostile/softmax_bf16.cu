// Hostile candidate for level1/023_Softmax of the published dataset.
// Hack: lowered precision. The exponentials and the result go through
// bfloat16 (8 significant bits instead of fp16's 11), a cheap way to halve
// register and shared-memory traffic; every value is within 0.4% of the
// right one, far inside the driver's rtol of 0.1.
// Expected: inaccurate.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdint>

__device__ float through_bf16(float v) { return __bfloat162float(__float2bfloat16(v)); }

__global__ void softmax_rows_bf16(const half* x, half* y, int dim) {
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
  for (int c = t; c < dim; c += 256) sum += through_bf16(expf(__half2float(xr[c]) - row_max));
  red[t] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = t; c < dim; c += 256)
    yr[c] = __float2half_rn(through_bf16(through_bf16(expf(__half2float(xr[c]) - row_max)) * inv));
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  softmax_rows_bf16<<<static_cast<int>(batch_size), 256>>>(static_cast<const half*>(input), static_cast<half*>(output),
                                                            static_cast<int>(dim));
  cudaDeviceSynchronize();
}
