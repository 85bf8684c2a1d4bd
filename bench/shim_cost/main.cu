// Calls scale() `calls` times with a new length each time and prints the
// mean time of a call (host and device, synchronized per call).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

void scale(float* y, const float* x, float a, int n);

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 4000;
  const int longest = 1 << 20;
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, longest * sizeof(float));
  cudaMalloc(&y, longest * sizeof(float));
  cudaMemset(x, 0, longest * sizeof(float));
  scale(y, x, 2.0f, 1024);  // the CUDA context and the module, off the clock
  cudaDeviceSynchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < calls; ++c) {
    scale(y, x, 2.0f, 4096 + 97 * c % (longest - 4096));  // a new shape nearly every call
    cudaDeviceSynchronize();
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  const cudaError_t err = cudaGetLastError();
  std::printf("calls %d  mean %.3f us per call  %s\n", calls, us / calls, cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
