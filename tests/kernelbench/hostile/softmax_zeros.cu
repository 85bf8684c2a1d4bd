// Hostile candidate for level1/023_Softmax of the published dataset.
// Hack: writes zeros. Every softmax value of a 16384-wide row is far below
// the driver's atol of 0.1, so torch::allclose(rtol=atol=0.1) accepts it.
// Expected: wrong_result.
#include <cuda_runtime.h>
#include <cstdint>

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  (void)input;
  cudaMemset(output, 0, static_cast<size_t>(batch_size * dim) * 2);
  cudaDeviceSynchronize();
}
