// Adversarial candidate: illegal_address
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     none intended: an out-of-bounds store 4 TiB past the output, the
//           kind of bug a wrong index type produces. It leaves the context
//           with a sticky illegal-address error.
// Expected: crashed
#include <kbexamples/kernels.h>

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i == 0) c[1ll << 40] = 1.0f;
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  vector_add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
