// A program shaped like real code, for the kernel recorder's GPU test: its
// kernels are launched from main(), through a template, from a kernel of
// internal linkage, with a struct argument, byte buffers and an in-place
// buffer. It checks its own results, and it launches one template
// instantiation a second way, through kernelblaster::kernel_symbol() and
// cudaLaunchKernel, as a kernel-level harness does.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "kernelblaster/harness.h"

struct Affine {
  float scale;
  float shift;
  int n;
};

__global__ void affine(const float* x, float* y, Affine a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) y[i] = a.scale * x[i] + a.shift;
}

template <int Block>
__global__ void block_sums(const float* x, float* sums, int n) {
  __shared__ float part[Block];
  int i = blockIdx.x * Block + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = Block / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

namespace {
__global__ void invert(unsigned char* pixels, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pixels[i] = 255 - pixels[i];
}
}  // namespace

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                     \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main() {
  const int n = 1 << 16;
  std::vector<float> hx(n);
  for (int i = 0; i < n; ++i) hx[i] = 1.0f + (i % 7);
  std::vector<unsigned char> hp(n);
  for (int i = 0; i < n; ++i) hp[i] = static_cast<unsigned char>(i % 200 + 10);
  float *x, *y, *sums, *half_sums;
  unsigned char* pixels;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&sums, n * sizeof(float)));
  CHECK(cudaMalloc(&half_sums, n * sizeof(float)));
  CHECK(cudaMalloc(&pixels, n));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(pixels, hp.data(), n, cudaMemcpyHostToDevice));

  for (int round = 0; round < 3; ++round) {  // the same shapes again: recorded once
    affine<<<(n + 255) / 256, 256>>>(x, y, Affine{2.0f, 1.0f, n});
    block_sums<128><<<n / 128, 128>>>(x, sums, n);
    block_sums<256><<<n / 256 / 2, 256>>>(x, half_sums, n / 2);
  }
  invert<<<(n + 127) / 128, 128>>>(pixels, n);
  CHECK(cudaDeviceSynchronize());

  std::vector<float> hs(n / 128);
  CHECK(cudaMemcpy(hs.data(), sums, hs.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0;
  for (float s : hs) total += s;
  double expect = 0;
  for (float v : hx) expect += v;
  std::printf("block_sums<128>: %.0f (expected %.0f)\n", total, expect);
  if (total != expect) return 1;

  // The same instantiation through its host stub's symbol.
  const void* stub = kernelblaster::kernel_symbol("_Z10block_sumsILi128EEvPKfPfi");
  if (!stub) {
    std::printf("kernel_symbol found no block_sums<128>\n");
    return 1;
  }
  CHECK(cudaMemset(sums, 0, n * sizeof(float)));
  int count = n;
  void* args[] = {&x, &sums, &count};
  CHECK(cudaLaunchKernel(stub, dim3(n / 128), dim3(128), args, 0, 0));
  CHECK(cudaMemcpy(hs.data(), sums, hs.size() * sizeof(float), cudaMemcpyDeviceToHost));
  total = 0;
  for (float s : hs) total += s;
  std::printf("block_sums<128> through kernel_symbol: %.0f\n", total);
  if (total != expect) return 1;
  const void* inv = kernelblaster::kernel_symbol("_ZN45_GLOBAL__N__f00dcafe_12_elsewhere_cu_b97e7b1c6invertEPhi");
  std::printf("invert (internal linkage) found: %s\n", inv ? "yes" : "no");
  return inv ? 0 : 1;
}
