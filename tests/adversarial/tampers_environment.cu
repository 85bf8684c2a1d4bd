// Adversarial candidate: tampers_environment
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     a static initializer changes the process's environment before
//           the harness reads it (here: the CUDA module loading mode, the
//           way a candidate would turn off an allocator the judge relies on).
// Expected: forbidden_code (a static constructor, and setenv, beyond the
//           original's); with the bound off, process_tampered: the process's
//           environment differs from the one it was started with.
#include <kbexamples/kernels.h>

#include <cstdlib>

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static const bool tampered = setenv("CUDA_MODULE_LOADING", "EAGER", 1) == 0;

void vector_add(const float* a, const float* b, float* c, int n) {
  (void)tampered;
  if (n > 0) add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
