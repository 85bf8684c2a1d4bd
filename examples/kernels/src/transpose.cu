// Naive matrix transpose: reads are coalesced, writes are strided by `rows`.
#include <kbexamples/kernels.h>

// kernelblaster: tunable TILE 8 16 32 technique=block_size_adaptation
// kernelblaster: constraint TILE * TILE <= 1024
#ifndef TILE
#define TILE 16
#endif

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
