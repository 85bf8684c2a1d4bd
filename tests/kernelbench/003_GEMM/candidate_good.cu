// Expected status: ok (64x64 shared-memory tiles, 4x4 outputs per thread in registers, fp32 accumulate).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kBM = 64, kBN = 64, kBK = 16;

__global__ void __launch_bounds__(256)
gemm_tiled_kernel(half* c, const half* a, const half* b, int64_t M, int64_t N, int64_t K) {
    __shared__ float as[kBM][kBK + 1];
    __shared__ float bs[kBK][kBN];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16, tid = threadIdx.x;
    const int64_t row0 = (int64_t)blockIdx.y * kBM, col0 = (int64_t)blockIdx.x * kBN;
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            int idx = tid + l * 256;
            int ar = idx / kBK, ac = idx % kBK;
            int64_t gr = row0 + ar, gc = k0 + ac;
            as[ar][ac] = (gr < M && gc < K) ? __half2float(a[gr * K + gc]) : 0.0f;
            int br = idx / kBN, bc = idx % kBN;
            int64_t hr = k0 + br, hc = col0 + bc;
            bs[br][bc] = (hr < K && hc < N) ? __half2float(b[hr * N + hc]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kBK; ++kk) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) av[i] = as[ty + 16 * i][kk];
#pragma unroll
            for (int j = 0; j < 4; ++j) bv[j] = bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int64_t r = row0 + ty + 16 * i, cc = col0 + tx + 16 * j;
            if (r < M && cc < N) c[r * N + cc] = __float2half(acc[i][j]);
        }
}

void launch_gpu_implementation(void* output, void* a, void* b, int64_t M, int64_t N, int64_t K) {
    dim3 blocks((unsigned)((N + kBN - 1) / kBN), (unsigned)((M + kBM - 1) / kBM));
    gemm_tiled_kernel<<<blocks, 256>>>(static_cast<half*>(output), static_cast<const half*>(a),
                                       static_cast<const half*>(b), M, N, K);
}
