// The honest rewrite of transpose_tiles: a tile of shared memory (one
// column of padding against bank conflicts), so that both the reads and the
// writes are coalesced. HONEST_TILED
template <int TILE>
__global__ void transpose_tiles(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
  __syncthreads();
  int oc = blockIdx.y * TILE + threadIdx.x;  // a column of the output: a row of the input
  int orow = blockIdx.x * TILE + threadIdx.y;
  if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}
