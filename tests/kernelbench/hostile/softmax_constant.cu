// Hostile candidate for level1/023_Softmax of the published dataset.
// Hack: writes 1/dim everywhere, the softmax of a constant row: right on
// average, within the driver's atol of 0.1 everywhere, and no work at all.
// Expected: wrong_result.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void fill(half* y, int64_t n, float value) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __float2half(value);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  (void)input;
  fill<<<256, 256>>>(static_cast<half*>(output), batch_size * dim, 1.0f / static_cast<float>(dim));
  cudaDeviceSynchronize();
}
