// Adversarial candidate: interposes_sync
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     defines cudaDeviceSynchronize itself: the launcher only records
//           its arguments, and the work happens inside the harness's own
//           synchronize, where the call's timing bracket has already closed.
// Expected: forbidden_code (it defines cudaDeviceSynchronize, a symbol of a
//           library the harness links).
#include <kbexamples/kernels.h>

#include <cuda_runtime.h>

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static const float *pending_a, *pending_b;
static float* pending_c;
static int pending_n;

extern "C" cudaError_t cudaDeviceSynchronize() {
  if (pending_n > 0) add_kernel<<<(pending_n + 255) / 256, 256>>>(pending_a, pending_b, pending_c, pending_n);
  pending_n = 0;
  return cudaStreamSynchronize(0);
}

void vector_add(const float* a, const float* b, float* c, int n) {
  pending_a = a;
  pending_b = b;
  pending_c = c;
  pending_n = n;
}
