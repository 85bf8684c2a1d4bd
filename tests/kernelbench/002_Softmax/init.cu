#include <cuda_runtime.h>
#include <cstdint>
#include <cfloat>

// One thread per row: three passes over the row (max, sum, write).
__global__ void softmax_row_kernel(float* output, const float* input, int64_t batch_size, int64_t dim) {
    int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row >= batch_size) return;
    const float* x = input + row * dim;
    float* y = output + row * dim;
    float m = -FLT_MAX;
    for (int64_t j = 0; j < dim; ++j) m = fmaxf(m, x[j]);
    float s = 0.0f;
    for (int64_t j = 0; j < dim; ++j) s += expf(x[j] - m);
    for (int64_t j = 0; j < dim; ++j) y[j] = expf(x[j] - m) / s;
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
    int threads = 128;
    int64_t blocks = (batch_size + threads - 1) / threads;
    softmax_row_kernel<<<(unsigned)blocks, threads>>>(static_cast<float*>(output), static_cast<const float*>(input),
                                                      batch_size, dim);
    cudaDeviceSynchronize();
}
