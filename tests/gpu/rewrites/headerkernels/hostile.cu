// A hostile rewrite of transpose_tiles: it transposes on its first call
// only and then returns at once, leaving what it wrote before (a result kept
// across calls, which a benchmark that reuses its inputs would time as fast).
__device__ unsigned kb_calls_seen;

template <int TILE>
__global__ void transpose_tiles(const float* in, float* out, int rows, int cols) {
  if (atomicAdd(&kb_calls_seen, 0u) > gridDim.x * gridDim.y * blockDim.x * blockDim.y) return;
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
  atomicAdd(&kb_calls_seen, 1u);
}
