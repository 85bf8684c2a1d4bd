// Adversarial candidate: matmul_l2_persisting
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     sets aside the largest persisting L2 region the GPU allows, marks
//           A persisting on the default stream, and never gives it back: the
//           lines survive a read-only flush, so every later call finds its
//           inputs' addresses warm. Computes honestly.
// Expected: cached_result (the call leaves L2 set aside for persisting
//           accesses when it returns)
#include "matmul_common.cuh"

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0) return;
  int max_persisting = 0, max_window = 0;
  cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, 0);
  cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0);
  if (max_persisting > 0 && max_window > 0) {
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persisting);
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = const_cast<float*>(A);
    size_t bytes = (size_t)M * K * sizeof(float);
    attr.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &attr);
  }
  honest_multiply(A, B, C, M, N, K);
}
