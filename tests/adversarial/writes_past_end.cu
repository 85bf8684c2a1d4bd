// Adversarial candidate: writes_past_end
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     a tile of 1000 elements per block with no bounds check: every
//           element the caller asked for is right, and the last block writes
//           up to 999 floats past the end of c (what a tuned tile that no
//           longer divides the size does to an unchecked kernel).
// Expected: out_of_bounds
#include <kbexamples/kernels.h>

namespace {

constexpr int kTile = 1000;  // divides none of the harness's sizes

__global__ void vector_add_tiles(const float* a, const float* b, float* c, int n) {
  const int base = blockIdx.x * kTile;
  for (int k = threadIdx.x; k < kTile; k += blockDim.x) {
    const int i = base + k;
    // Reads stay in bounds (a read past the end could fault); the write does not.
    c[i] = i < n ? a[i] + b[i] : 0.0f;
  }
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  vector_add_tiles<<<(n + kTile - 1) / kTile, 256>>>(a, b, c, n);
}
