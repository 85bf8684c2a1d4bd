// Adversarial candidate: links_runtime_seed
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     declares a function of the evaluation's own runtime by its name
//           (the seed of the current invocation) and would compute only on
//           the seeds that will be checked.
// Expected: forbidden_code (its object calls the tool's own runtime).
#include <kbexamples/kernels.h>

#include <cstdint>

namespace kernelblaster::kernelbench {
std::uint64_t invocation_seed();
}

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  static std::uint64_t first = kernelblaster::kernelbench::invocation_seed();
  if (n > 0 && kernelblaster::kernelbench::invocation_seed() >= first)
    add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
