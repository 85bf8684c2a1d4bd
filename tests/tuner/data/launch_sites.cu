// A fuzzing seed for the launch sites' tunables: a stencil whose choices
// sit where authors put them (a plain #define, const locals feeding a
// template and a dim3, a literal template argument, a static_assert).
#include <cuda_runtime.h>

#define HALO 1

template <int TX, int TY, int STEPS>
__global__ void stencil(const float* in, float* out, int w, int h) {
  __shared__ float tile[TY + 2 * HALO][TX * STEPS + 2 * HALO];
  static_assert(TX % 8 == 0, "rows of eight");
  const int x = blockIdx.x * TX * STEPS + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  if (x < w && y < h) out[y * w + x] = tile[threadIdx.y][threadIdx.x];
}

void run_stencil(const float* in, float* out, int w, int h) {
  const int TX = 32;
  constexpr int TY = 8;
  static_assert(TX * TY <= 1024, "one block");
  dim3 block(TX, TY);
  dim3 grid((w + TX * 4 - 1) / (TX * 4), (h + TY - 1) / TY);
  stencil<TX, TY, 4><<<grid, block>>>(in, out, w, h);
}
