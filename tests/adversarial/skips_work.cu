// Adversarial candidate: skips_work
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     only even-numbered blocks do their work, halving the runtime; the
//           elements of odd blocks are never written.
// Expected: unwritten_output (the untouched elements still hold the poison)
#include <kbexamples/kernels.h>

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  if (blockIdx.x % 2 == 1) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  vector_add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
