// Good candidate: transpose_tiled
// Replaces: examples/kernels/src/transpose.cu (links with transpose_harness.cu)
// Change:   stages a 32x32 tile through shared memory so that both the reads
//           and the writes are coalesced. The tile is 32x33: the extra column
//           puts each column of the tile in a different bank, so reading it
//           transposed has no bank conflicts. 32x8 threads, 4 rows each.
// Expected: ok (bit-exact: values are only moved)
#include <kbexamples/kernels.h>

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int c = blockIdx.x * kTile + threadIdx.x;
  int r0 = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRowsPerPass) {
    int r = r0 + j;
    if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)r * cols + c];
  }
  __syncthreads();
  // Swap the block's roles: threadIdx.x now walks the input rows, which are
  // the output's contiguous dimension.
  int oc = blockIdx.y * kTile + threadIdx.x;   // output column = input row
  int or0 = blockIdx.x * kTile + threadIdx.y;  // output row = input column
  for (int j = 0; j < kTile; j += kRowsPerPass) {
    int orow = or0 + j;
    if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
  }
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(kTile, kRowsPerPass);
  dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
