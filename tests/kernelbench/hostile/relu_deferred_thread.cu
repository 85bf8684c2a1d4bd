// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: hands the launch to a thread of its own and returns at once: the
// call costs nothing, and the work lands later, outside any timed region.
// Expected: untimed_work (or unwritten_output, where the output is read
// before the thread got to it).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdint>
#include <thread>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    relu<<<512, 256>>>(static_cast<const half*>(input), static_cast<half*>(output), batch_size * dim);
    cudaStreamSynchronize(0);
  }).detach();
}
