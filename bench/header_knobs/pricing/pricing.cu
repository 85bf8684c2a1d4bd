#include <cstdio>
#include "pricing.h"
#define OPT_N 4000000
#define DIV_UP(a, b) (((a) + (b) - 1) / (b))
__global__ void price_kernel(float* call, float* put, const float* s, const float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    call[i] = s[i] - x[i];
    put[i] = x[i] - s[i];
  }
}
int main() {
  const int OPT_SZ = OPT_N * sizeof(float);
  float *call, *put, *s, *x;
  cudaMalloc((void**)&call, OPT_SZ);
  cudaMalloc((void**)&put, OPT_SZ);
  cudaMalloc((void**)&s, OPT_SZ);
  cudaMalloc((void**)&x, OPT_SZ);
  price_kernel<<<DIV_UP(OPT_N / 2, 128), 128>>>(call, put, s, x, OPT_N);
  cudaDeviceSynchronize();
  printf("done\n");
}
