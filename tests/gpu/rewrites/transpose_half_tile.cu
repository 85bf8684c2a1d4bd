// Rewrite for examples/kernels/src/transpose.cu (with transpose_harness.cu)
// Hostile: the shared-memory tile holds __half instead of float, halving
// its footprint; every value comes out rounded to 11 significant bits.
// Expected: wrong_result. Lowered precision, but for fp32 outputs whose
// tolerance is ~1e-6 relative, a 5e-4 rounding error on every element is
// more than 1000 allowances over: runtime/compare.h merely_inaccurate() calls
// that wrong, not inaccurate (H100, 2026-11-25: rel L2 2.1e-4, 393168 of
// 393216 elements off).
#include <cuda_fp16.h>
#include <kbexamples/kernels.h>

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ __half tile[32][34];
  int c = blockIdx.x * 32 + threadIdx.x;
  int r0 = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (r0 + j < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = __float2half(in[(size_t)(r0 + j) * cols + c]);
  __syncthreads();
  int oc = blockIdx.y * 32 + threadIdx.x;
  int or0 = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (or0 + j < cols && oc < rows) out[(size_t)(or0 + j) * rows + oc] = __half2float(tile[threadIdx.x][threadIdx.y + j]);
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
