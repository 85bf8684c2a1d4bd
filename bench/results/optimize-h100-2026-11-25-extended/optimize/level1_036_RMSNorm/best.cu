// Rewrite for ../shared/kernelbench-cuda/level1/036_RMSNorm/init.cu
// Honest: the original gives each (batch, d1, d2) position a block of 256
// threads that walk its 64 features, dim1*dim2 elements apart: every load
// is a separate 2-byte transaction and most threads idle. Here one thread
// owns one position and walks the features itself; neighbouring threads
// read neighbouring elements of each feature plane, so every access is
// coalesced, and no shared memory or barrier is needed. Same math in fp32
// (sum of squares, mean, sqrt(mean + eps), x / rms).
// Expected: ok, many times faster
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rmsnorm_positions(half* __restrict__ output, const half* __restrict__ input, int64_t num_features,
                                  int64_t plane, float eps) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= plane) return;
  int64_t base = (int64_t)blockIdx.y * num_features * plane + p;
  float sum = 0.0f;
  for (int64_t f = 0; f < num_features; ++f) {
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
  dim3 block(256);
  dim3 grid((unsigned)((plane + 255) / 256), (unsigned)batch_size);
  rmsnorm_positions<<<grid, block>>>(static_cast<half*>(output), static_cast<const half*>(input), num_features, plane,
                                     eps);
}
