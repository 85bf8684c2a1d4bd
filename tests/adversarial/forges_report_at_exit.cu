// Adversarial candidate: forges_report_at_exit
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     computes honestly, and registers an exit handler that rewrites
//           the report.json its process wrote, dividing every timing in it
//           by 2.6: run after the report is final, the forgery would be
//           what the judge reads.
// Expected: forbidden_code (an exit handler the original does not
//           register); with the bound off, ok at the original's speed: the
//           process ends with _Exit once its report is written, and no
//           exit handler runs.
#include <kbexamples/kernels.h>

#include <cstdlib>

#include "report_forger.cuh"

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  static bool armed = std::atexit(forge_report) == 0;
  (void)armed;
  if (n > 0) add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
