#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int maxp = -1, maxw = -1;
  cudaError_t e1 = cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, 0);
  cudaError_t e2 = cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxAccessPolicyWindowSize, 0);
  printf("attr max persisting %d (%s), max window %d (%s)\n", maxp, cudaGetErrorString(e1), maxw, cudaGetErrorString(e2));
  size_t v = 123;
  cudaError_t e3 = cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize);
  printf("get limit before: %zu (%s)\n", v, cudaGetErrorString(e3));
  cudaError_t e4 = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)maxp);
  printf("set limit %d: %s\n", maxp, cudaGetErrorString(e4));
  cudaError_t e5 = cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize);
  printf("get limit after: %zu (%s)\n", v, cudaGetErrorString(e5));
  cudaError_t e6 = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  cudaError_t e7 = cudaCtxResetPersistingL2Cache();
  cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize);
  printf("reset: %s, %s, now %zu\n", cudaGetErrorString(e6), cudaGetErrorString(e7), v);
}
