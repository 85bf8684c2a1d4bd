#include "ops/ops.h"
#include "ops/kernels.cuh"

void ops_transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(32, 32);
  dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  transpose_tiles<32><<<grid, block>>>(in, out, rows, cols);
}

void ops_bias(const float* in, float* out, int n, float bias) {
  if (n <= 0) return;
  add_bias<<<(n + 255) / 256, 256>>>(in, out, n, bias);
}
