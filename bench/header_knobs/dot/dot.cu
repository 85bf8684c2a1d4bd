#include <cstdio>
#include "dot.h"
__global__ void dot_kernel(float* out, const float* a, const float* b, int vectors, int n) {
  __shared__ float acc[ACCUM_N];
  for (int v = blockIdx.x; v < vectors; v += gridDim.x) {
    for (int i = threadIdx.x; i < ACCUM_N; i += blockDim.x) {
      float sum = 0;
      for (int p = v * n + i; p < v * n + n; p += ACCUM_N) sum += a[p] * b[p];
      acc[i] = sum;
    }
    for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int i = threadIdx.x; i < stride; i += blockDim.x) acc[i] += acc[stride + i];
    }
    if (threadIdx.x == 0) out[v] = acc[0];
  }
}
int main() {
  const int vectors = 256, n = 4096;
  float *a, *b, *out;
  cudaMalloc((void**)&a, vectors * n * sizeof(float));
  cudaMalloc((void**)&b, vectors * n * sizeof(float));
  cudaMalloc((void**)&out, vectors * sizeof(float));
  dot_kernel<<<128, 256>>>(out, a, b, vectors, n);
  cudaDeviceSynchronize();
  printf("done\n");
}
