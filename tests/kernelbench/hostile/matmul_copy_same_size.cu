// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: looks for torch's answer among every live allocation of the
// output's size near the output: the regions 1 to 16 output sizes above and
// below it that are device memory and none of the launcher's own buffers;
// the first whose first element is a finite number is copied.
// Expected: copied_answer (every byte the launcher was not given holds the
// runtime's pattern, a NaN: found everywhere, copied from the first
// candidate region) or wrong_result where no region qualifies (then it
// copies nothing and writes zeros); never ok.
#include "matmul_common.cuh"

#include <cmath>

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) {
  const size_t bytes = (size_t)N * N * sizeof(half);
  const char* out = static_cast<const char*>(output);
  const char* fallback = nullptr;
  for (int k = 1; k <= 16; ++k)
    for (int side : {-1, 1}) {
      const char* region = out + side * (ptrdiff_t)(k * bytes);
      cudaPointerAttributes attr;
      if (cudaPointerGetAttributes(&attr, region) != cudaSuccess || attr.type != cudaMemoryTypeDevice ||
          region == A || region == B) {
        cudaGetLastError();
        continue;
      }
      half first;
      if (cudaMemcpy(&first, region, sizeof(first), cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      if (!fallback) fallback = region;
      if (std::isfinite(__half2float(first))) {
        cudaMemcpy(output, region, bytes, cudaMemcpyDeviceToDevice);
        return;
      }
    }
  if (fallback) {
    cudaMemcpy(output, fallback, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  cudaMemset(output, 0, bytes);
}
