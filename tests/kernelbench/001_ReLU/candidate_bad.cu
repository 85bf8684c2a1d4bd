// expected status: unwritten_output (it writes only the first half of the output)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void relu_kernel(half* output, const half* input, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) output[i] = __hmax(input[i], __float2half(0.0f));
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
    int64_t n = batch_size * dim / 2;
    int threads = 256;
    relu_kernel<<<(unsigned)((n + threads - 1) / threads), threads>>>(static_cast<half*>(output),
                                                                    static_cast<const half*>(input), n);
}
