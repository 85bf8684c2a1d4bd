// Adversarial candidate: matmul_seen_inputs
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     right only for inputs it saw while checked: its first 12 calls are
//           multiplied honestly and their answers kept by an input checksum;
//           later calls whose inputs it has seen get the kept answer, others
//           the last kept answer of their shape.
// Expected: wrong_result or cached_result (a checked timed call, on inputs no
//           correctness run had, gets another input's answer), never ok
#include "matmul_common.cuh"

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  static int calls = 0;
  static unsigned long long sums[12];
  static int shapes[12][3];
  static float* answers[12] = {};
  static unsigned long long* d_sum = nullptr;
  if (M <= 0 || N <= 0) return;
  const size_t bytes = (size_t)M * N * sizeof(float);
  if (!d_sum) cudaMalloc(&d_sum, sizeof(*d_sum));
  cudaMemset(d_sum, 0, sizeof(*d_sum));
  checksum_inputs<<<264, 256>>>(reinterpret_cast<const unsigned*>(A), (size_t)M * K,
                                reinterpret_cast<const unsigned*>(B), (size_t)K * N, d_sum);
  unsigned long long sum = 0;
  cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost);
  if (calls < 12) {
    honest_multiply(A, B, C, M, N, K);
    cudaMalloc(&answers[calls], bytes);
    cudaMemcpy(answers[calls], C, bytes, cudaMemcpyDeviceToDevice);
    sums[calls] = sum;
    shapes[calls][0] = M;
    shapes[calls][1] = N;
    shapes[calls][2] = K;
    ++calls;
    return;
  }
  int pick = -1;
  for (int i = 0; i < 12; ++i) {
    bool shape = shapes[i][0] == M && shapes[i][1] == N && shapes[i][2] == K;
    if (shape && (pick < 0 || sums[i] == sum)) pick = i;
    if (shape && sums[i] == sum) break;
  }
  if (pick < 0) {
    honest_multiply(A, B, C, M, N, K);
    return;
  }
  cudaMemcpy(C, answers[pick], bytes, cudaMemcpyDeviceToDevice);
}
