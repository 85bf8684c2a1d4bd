// Honest candidate for level1/019_ReLU of the published dataset: half2
// loads and stores, and the launcher declared inside an extern "C" block.
// Expected: ok (a different, correct implementation is not rejected, and
// the block's C linkage builds).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void relu_half2(const half2* x, half2* y, int64_t pairs) {
  const half2 zero = __float2half2_rn(0.0f);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < pairs; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hmax2(x[i], zero);
}

__global__ void relu_tail(const half* x, half* y, int64_t begin, int64_t n) {
  int64_t i = begin + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

extern "C" {

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  int64_t n = batch_size * dim, pairs = n / 2;
  relu_half2<<<1024, 256>>>(static_cast<const half2*>(input), static_cast<half2*>(output), pairs);
  if (n % 2) relu_tail<<<1, 32>>>(static_cast<const half*>(input), static_cast<half*>(output), 2 * pairs, n);
  cudaDeviceSynchronize();
}

}  // extern "C"
