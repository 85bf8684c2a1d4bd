// Adversarial candidate: all_zero_softmax
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     writes 0 everywhere. On wide rows every softmax value is tiny, so a
//           checker using a plain absolute tolerance (say atol 0.1) passes it.
// Expected: wrong_result (relative L2 error is 1, far beyond "inaccurate")
#include <kbexamples/kernels.h>

__global__ void fill_zero_kernel(float* y, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.0f;
}

void softmax_rows(const float* x, float* y, int rows, int cols) {
  (void)x;
  size_t n = (size_t)rows * cols;
  if (n == 0) return;
  fill_zero_kernel<<<(unsigned)((n + 255) / 256), 256>>>(y, n);
}
