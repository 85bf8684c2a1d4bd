// Rewrite for ../shared/kernelbench-cuda/level1/036_RMSNorm/init.cu
// Broken: the coalesced rewrite with an off-by-half loop bound in the sum
// of squares (it reads only the first half of the features but still
// divides by all of them): the norm is off by about 30%.
// Expected: wrong_result
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rmsnorm_positions(half* __restrict__ output, const half* __restrict__ input, int64_t num_features,
                                  int64_t plane, float eps) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= plane) return;
  int64_t base = (int64_t)blockIdx.y * num_features * plane + p;
  float sum = 0.0f;
  for (int64_t f = 0; f < num_features / 2; ++f) {
    float v = __half2float(input[base + f * plane]);
    sum += v * v;
  }
  float rms = sqrtf(sum / num_features + eps);
  for (int64_t f = 0; f < num_features; ++f)
    output[base + f * plane] = __float2half_rn(__half2float(input[base + f * plane]) / rms);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t num_features, int64_t dim1,
                               int64_t dim2, float eps) {
  int64_t plane = dim1 * dim2;
  dim3 grid((unsigned)((plane + 255) / 256), (unsigned)batch_size);
  rmsnorm_positions<<<grid, 256>>>(static_cast<half*>(output), static_cast<const half*>(input), num_features, plane,
                                   eps);
}
