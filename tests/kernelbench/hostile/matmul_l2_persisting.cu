// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: sets aside the largest L2 region the GPU allows for persisting
// accesses and marks A and B persisting on the default stream, and never
// gives it back: the lines stay in the L2 across calls, through a flush
// that only reads (normal lines are evicted, persisting ones are not), so
// every later call finds its inputs' addresses warm. Computes honestly.
// Expected: cached_result (the call leaves L2 set aside for persisting
// accesses when it returns; the runtime takes it back before every run).
#include "matmul_common.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) {
  int max_persisting = 0, max_window = 0;
  cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, 0);
  cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0);
  if (max_persisting > 0 && max_window > 0) {
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persisting);
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = A;
    size_t bytes = (size_t)N * N * sizeof(half);
    attr.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &attr);
  }
  honest_multiply(output, A, B, N);
}
