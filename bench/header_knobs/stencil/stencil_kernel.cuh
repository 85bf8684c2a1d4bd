#pragma once
#include "stencil.h"
__global__ void stencil_kernel(float* out, const float* in, int dimx, int dimy, int dimz) {
  __shared__ float tile[k_blockDimMaxY + 2 * RADIUS][k_blockDimX + 2 * RADIUS];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int tx = threadIdx.x + RADIUS, ty = threadIdx.y + RADIUS;
  for (int z = 0; z < dimz; ++z) {
    const int at = (z * dimy + y) * dimx + x;
    if (x < dimx && y < dimy) tile[ty][tx] = in[at];
    __syncthreads();
    if (x < dimx && y < dimy) out[at] = tile[ty][tx] * 0.5f;
    __syncthreads();
  }
}
