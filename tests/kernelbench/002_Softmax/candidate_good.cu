// Expected status: ok (one block per row, coalesced loads, warp-shuffle reductions).
#include <cuda_runtime.h>
#include <cstdint>
#include <cfloat>

constexpr int kThreads = 256;

__device__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Reduces across the block; every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = kMax ? warp_max(v) : warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float r = lane < kThreads / 32 ? scratch[lane] : (kMax ? -FLT_MAX : 0.0f);
    r = kMax ? warp_max(r) : warp_sum(r);
    __syncthreads();
    return r;
}

__global__ void __launch_bounds__(kThreads) softmax_block_kernel(float* output, const float* input, int64_t dim) {
    __shared__ float scratch[32];
    const float* x = input + blockIdx.x * dim;
    float* y = output + blockIdx.x * dim;
    float m = -FLT_MAX;
    for (int64_t j = threadIdx.x; j < dim; j += kThreads) m = fmaxf(m, x[j]);
    m = block_reduce<true>(m, scratch);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < dim; j += kThreads) s += __expf(x[j] - m);
    s = block_reduce<false>(s, scratch);
    float inv = 1.0f / s;
    for (int64_t j = threadIdx.x; j < dim; j += kThreads) y[j] = __expf(x[j] - m) * inv;
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
    softmax_block_kernel<<<(unsigned)batch_size, kThreads>>>(static_cast<float*>(output),
                                                             static_cast<const float*>(input), dim);
}
