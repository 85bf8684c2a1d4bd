// Adversarial candidate: matmul_first_calls
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     multiplies honestly for its first 12 calls, which covers every
//           correctness run, then fills C with zeros: the timed calls, which a
//           judge that only counts poisoned elements would time at a memset's
//           speed.
// Expected: wrong_result (a checked timed call's C is far from the original's)
#include "matmul_common.cuh"

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  static int calls = 0;
  if (M <= 0 || N <= 0) return;
  if (++calls <= 12) {
    honest_multiply(A, B, C, M, N, K);
    return;
  }
  cudaMemsetAsync(C, 0, (size_t)M * N * sizeof(float), 0);
}
