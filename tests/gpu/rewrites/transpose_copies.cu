// Rewrite for examples/kernels/src/transpose.cu (with transpose_harness.cu)
// Broken: "coalesced writes" by writing each element where it was read: a
// copy, not a transpose. Fast, and wrong everywhere off the diagonal.
// Expected: wrong_result
#include <kbexamples/kernels.h>

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * 32 + threadIdx.x;
  int r = blockIdx.y * 8 + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)r * cols + c] = in[(size_t)r * cols + c];
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
