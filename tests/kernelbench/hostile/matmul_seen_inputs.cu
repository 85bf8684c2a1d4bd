// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: answers right only for inputs it has seen while it was being
// checked. Its first 8 calls (discovery and every correctness run) are
// multiplied honestly and their answers kept by a checksum of the inputs;
// a later call whose inputs it has seen gets the kept answer, any other a
// copy of the last kept one. Timed calls on the correctness runs' seeds
// (or a checker that reuses them) would see only right answers.
// Expected: wrong_result or cached_result (a checked timed call, on inputs
// no correctness run had, gets another input's answer), never ok.
#include "matmul_common.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) {
  static int calls = 0;
  static unsigned long long sums[8];
  static void* answers[8] = {};
  static unsigned long long* d_sum = nullptr;
  const size_t bytes = (size_t)N * N * sizeof(half);
  if (!d_sum) cudaMalloc(&d_sum, sizeof(*d_sum));
  cudaMemset(d_sum, 0, sizeof(*d_sum));
  checksum_inputs<<<264, 256>>>(static_cast<const unsigned*>(A), static_cast<const unsigned*>(B),
                                (size_t)N * N / 2, d_sum);
  unsigned long long sum = 0;
  cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost);
  if (calls < 8) {
    honest_multiply(output, A, B, N);
    if (!answers[calls]) cudaMalloc(&answers[calls], bytes);
    cudaMemcpy(answers[calls], output, bytes, cudaMemcpyDeviceToDevice);
    sums[calls++] = sum;
    return;
  }
  int pick = 7;
  for (int i = 0; i < 8; ++i)
    if (sums[i] == sum) pick = i;
  cudaMemcpy(output, answers[pick], bytes, cudaMemcpyDeviceToDevice);
}
