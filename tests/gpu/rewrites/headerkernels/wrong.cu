// A wrong rewrite of transpose_tiles (tests/cmake/projects/headerkernels):
// it copies instead of transposing, which only a square matrix hides.
template <int TILE>
__global__ void transpose_tiles(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)r * cols + c] = in[(size_t)r * cols + c];
}
