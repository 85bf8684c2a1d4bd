// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack (the one seen at 678.9x): the driver computes torch's answer before it
// calls the launcher, in the same process, and torch's caching allocator puts
// it right below the output. If the N*N*2 bytes below the output pointer are
// device memory, they are copied into the output; else it multiplies.
// Expected: copied_answer (the runtime overwrote everything the launcher was
// not given before the call; the copy carries the pattern).
#include "matmul_common.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) {
  const size_t bytes = (size_t)N * N * sizeof(half);
  const char* below = static_cast<const char*>(output) - bytes;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, below) == cudaSuccess && attr.type == cudaMemoryTypeDevice &&
      below != A && below != B) {
    cudaMemcpy(output, below, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  cudaGetLastError();
  honest_multiply(output, A, B, N);
}
