// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: remembers every output pointer it has answered and returns at once
// when it sees one again. A benchmark that times repeated calls on the same
// buffers sees no work at all; the driver checks only its own first call.
// Expected: cached_result.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <set>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  static std::set<void*> answered;
  if (!answered.insert(output).second) return;
  relu<<<512, 256>>>(static_cast<const half*>(input), static_cast<half*>(output), batch_size * dim);
  cudaDeviceSynchronize();
}
