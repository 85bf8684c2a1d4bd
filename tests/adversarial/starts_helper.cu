// Adversarial candidate: starts_helper
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     forks a helper process that would do the work while the timed
//           process waits on the host, where the timing sees no GPU work of
//           its own.
// Expected: forbidden_code (its object calls fork).
#include <kbexamples/kernels.h>

#include <sys/wait.h>
#include <unistd.h>

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  pid_t helper = fork();
  if (helper == 0) _exit(0);  // the helper's share of the work would go here
  if (helper > 0) waitpid(helper, nullptr, 0);
  if (n > 0) add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
