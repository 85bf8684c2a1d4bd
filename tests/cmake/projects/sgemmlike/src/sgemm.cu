// Runs one kernel against cuBLAS and checks the result, as the tutorial's
// driver does. sgemm [kernel] (1: naive, 2: tiled).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runner.cuh"

int main(int argc, char** argv) {
  const int kernel = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = 256;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>((i * 7) % 13) / 13.f;
    b[i] = static_cast<float>((i * 5) % 11) / 11.f;
  }
  float *A, *B, *C, *R;
  if (cudaMalloc(&A, n * n * 4) != cudaSuccess) {
    std::printf("no GPU: nothing to run\n");
    return 0;
  }
  cudaMalloc(&B, n * n * 4);
  cudaMalloc(&C, n * n * 4);
  cudaMalloc(&R, n * n * 4);
  cudaMemcpy(A, a.data(), n * n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, b.data(), n * n * 4, cudaMemcpyHostToDevice);
  cudaMemset(C, 0, n * n * 4);
  cudaMemset(R, 0, n * n * 4);
  cublasHandle_t handle;
  cublasCreate(&handle);
  run_kernel(0, n, n, n, 1.f, A, B, 0.f, R, handle);
  run_kernel(kernel, n, n, n, 1.f, A, B, 0.f, C, handle);
  std::vector<float> c(n * n), r(n * n);
  cudaMemcpy(c.data(), C, n * n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(r.data(), R, n * n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n * n; ++i) {
    if (std::abs(c[i] - r[i]) > 1e-3f * (1.f + std::abs(r[i]))) {
      std::printf("kernel %d differs from cuBLAS at %d: %f vs %f\n", kernel, i, c[i], r[i]);
      return 1;
    }
  }
  std::printf("kernel %d matches cuBLAS\n", kernel);
  cublasDestroy(handle);
  return 0;
}
