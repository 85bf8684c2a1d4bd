// The tile kernels bench/ab_program/back_to_back.cu and
// bench/launch_bound/launch_bound.cu time: a tiled copy and a tiled
// transpose of floats, 32x32 tiles, a block of 32 threads by Rows rows
// (each thread moves kTile / Rows elements), as the cuda-samples transpose
// shapes them (issue 38).
#pragma once

constexpr int kTile = 32;

template <int Rows>
__global__ void tiled_copy(float* out, const float* in, int width) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += Rows) out[(y + r) * width + x] = in[(y + r) * width + x];
}

template <int Rows>
__global__ void tiled_transpose(float* out, const float* in, int width, int height) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += Rows) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += Rows) out[(y + r) * height + x] = tile[threadIdx.x][threadIdx.y + r];
}
