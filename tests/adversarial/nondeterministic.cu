// Adversarial candidate: nondeterministic
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     stands in for a racy kernel: correct on even calls, one element
//           off by +1 on odd calls. A checker that verifies a single run
//           passes it half the time.
// Expected: nondeterministic
#include <kbexamples/kernels.h>

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void perturb_kernel(float* c, int i) { c[i] += 1.0f; }

void vector_add(const float* a, const float* b, float* c, int n) {
  static unsigned long long calls = 0;
  if (n <= 0) return;
  vector_add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
  if (calls++ % 2 == 1) perturb_kernel<<<1, 1>>>(c, n / 2);
}
