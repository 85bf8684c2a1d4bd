#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "scale_shift.h"

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1 << 20;
  std::vector<float> host(n, 2.0f);
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    std::puts("no GPU");
    return 1;
  }
  cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale_shift(x, y, 3.0f, 1.0f, n);
  cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  for (float v : host)
    if (v != 7.0f) {
      std::printf("wrong: %g\n", v);
      return 1;
    }
  std::puts("ok");
  return 0;
}
