#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

// One half per thread.
__global__ void relu_kernel(half* output, const half* input, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        half v = input[i];
        output[i] = __hgt(v, __float2half(0.0f)) ? v : __float2half(0.0f);
    }
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
    int64_t n = batch_size * dim;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    relu_kernel<<<(unsigned)blocks, threads>>>(static_cast<half*>(output), static_cast<const half*>(input), n);
    cudaDeviceSynchronize();
}
