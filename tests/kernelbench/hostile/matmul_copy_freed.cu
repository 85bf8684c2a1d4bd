// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: memory the driver freed. On its first call it notes where the N*N*2
// bytes below the output were (torch's answer of that call), and answers
// every later call by copying from that address: torch freed the tensor
// when the driver's main() returned, but its caching allocator keeps the
// memory, and the next main() puts the next answer there again.
// Expected: copied_answer (free memory is overwritten before every call too).
#include "matmul_common.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) {
  static const char* remembered = nullptr;
  const size_t bytes = (size_t)N * N * sizeof(half);
  if (!remembered) {
    remembered = static_cast<const char*>(output) - bytes;
    honest_multiply(output, A, B, N);
    return;
  }
  cudaPointerAttributes attr;
  if (remembered != A && remembered != B && cudaPointerGetAttributes(&attr, remembered) == cudaSuccess &&
      attr.type == cudaMemoryTypeDevice) {
    cudaMemcpy(output, remembered, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  cudaGetLastError();
  honest_multiply(output, A, B, N);
}
