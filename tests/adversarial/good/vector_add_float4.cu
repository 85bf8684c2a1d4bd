// Good candidate: vector_add_float4
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Change:   16-byte loads and stores through float4, a grid-stride loop sized
//           to the GPU, and a scalar tail for n not divisible by 4. Falls back
//           to scalar code when a pointer is not 16-byte aligned.
// Expected: ok (bit-exact: the arithmetic is unchanged)
#include <kbexamples/kernels.h>

#include <cstdint>

__global__ void vector_add_vec4(const float4* __restrict__ a, const float4* __restrict__ b,
                                float4* __restrict__ c, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void vector_add_scalar(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int begin, int n) {
  for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

static int grid_for(int work, int threads) {
  static int sms = [] {
    int dev = 0, count = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev);
    return count > 0 ? count : 132;
  }();
  int blocks = (work + threads - 1) / threads;
  int cap = sms * 8;  // enough resident blocks to hide latency, no more
  return blocks < cap ? (blocks > 0 ? blocks : 1) : cap;
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n <= 0) return;
  bool aligned = ((reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) |
                   reinterpret_cast<std::uintptr_t>(c)) % 16) == 0;
  int n4 = aligned ? n / 4 : 0;
  if (n4 > 0)
    vector_add_vec4<<<grid_for(n4, 256), 256>>>(reinterpret_cast<const float4*>(a),
                                                  reinterpret_cast<const float4*>(b),
                                                  reinterpret_cast<float4*>(c), n4);
  if (4 * n4 < n) vector_add_scalar<<<grid_for(n - 4 * n4, 256), 256>>>(a, b, c, 4 * n4, n);
}
