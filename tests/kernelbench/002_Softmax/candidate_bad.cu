// Expected status: wrong_result (writes an all-zero output instead of the softmax).
#include <cuda_runtime.h>
#include <cstdint>

__global__ void zero_kernel(float* output, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) output[i] = 0.0f;
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
    int64_t n = batch_size * dim;
    zero_kernel<<<(unsigned)((n + 255) / 256), 256>>>(static_cast<float*>(output), n);
}
