#pragma once
// The block's shape and the stencil's reach, chosen by the author.
#define k_blockDimX 32
#define k_blockDimMaxY 16
#define RADIUS 4
#define k_blockSizeMax (k_blockDimX * k_blockDimMaxY)
void run_stencil(float* out, const float* in, int dimx, int dimy, int dimz, int user_block);
