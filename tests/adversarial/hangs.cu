// Adversarial candidate: hangs
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     none intended: a kernel that waits for a flag nobody sets, as a
//           broken spin-lock or grid barrier would. The flag is volatile, so
//           the compiler must re-read it and cannot delete the loop.
// Expected: timed_out
#include <kbexamples/kernels.h>

__device__ volatile int kb_release = 0;

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  while (kb_release == 0) {
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  vector_add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
