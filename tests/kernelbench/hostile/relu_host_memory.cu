// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: none on the GPU (its ReLU is right), but on its first call it takes
// host memory without end, 1 GiB at a time with every page written: a
// runaway allocation that would take the machine (and the tool) down.
// Expected: out_of_memory (the harness's memory limit; cases.json sets
// KERNELBLASTER_SANDBOX_MEMORY=8G so it ends within seconds).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  static bool grabbed = false;
  if (!grabbed) {
    grabbed = true;
    const std::size_t chunk = std::size_t{1} << 30;
    for (int i = 0; i < 1024; ++i) {
      void* p = std::malloc(chunk);
      if (!p) break;
      std::memset(p, i + 1, chunk);
    }
  }
  relu<<<512, 256>>>(static_cast<const half*>(input), static_cast<half*>(output), batch_size * dim);
}
