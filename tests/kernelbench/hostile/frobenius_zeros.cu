// Hostile candidate for level1/037_FrobeniusNorm of the published dataset.
// Hack: writes zeros. x / ||x||_F over 4M elements is about 5e-4 per
// element, so the driver's atol of 0.1 accepts zeros (and it is 40x "faster").
// Expected: wrong_result.
#include <cuda_runtime.h>
#include <cstdint>

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t features, int64_t dim1,
                               int64_t dim2) {
  (void)input;
  cudaMemset(output, 0, static_cast<size_t>(batch_size * features * dim1 * dim2) * 2);
  cudaDeviceSynchronize();
}
