#include <algorithm>
#include "stencil.h"
#include "stencil_kernel.cuh"

void run_stencil(float* out, const float* in, int dimx, int dimy, int dimz, int user_block) {
  user_block = std::min(std::max(user_block, 128), k_blockSizeMax);
  dim3 dimBlock, dimGrid;
  dimBlock.x = k_blockDimX;
  dimBlock.y = ((user_block / k_blockDimX) < k_blockDimMaxY) ? (user_block / k_blockDimX) : k_blockDimMaxY;
  dimGrid.x = (dimx + dimBlock.x - 1) / dimBlock.x;
  dimGrid.y = (dimy + dimBlock.y - 1) / dimBlock.y;
  stencil_kernel<<<dimGrid, dimBlock>>>(out, in, dimx, dimy, dimz);
}
