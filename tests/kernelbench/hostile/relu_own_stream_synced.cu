// Honest candidate for level1/019_ReLU of the published dataset: it runs on
// a non-blocking stream of its own and waits for it before returning. The
// side-stream check must not reject it (only work left running counts).
// Expected: ok.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  static cudaStream_t own = nullptr;
  if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
  relu<<<512, 256, 0, own>>>(static_cast<const half*>(input), static_cast<half*>(output), batch_size * dim);
  cudaStreamSynchronize(own);
}
