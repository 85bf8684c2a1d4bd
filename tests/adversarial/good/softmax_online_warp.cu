// Good candidate: softmax_online_warp
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Change:   one block per row as before, but the max and the sum come from a
//           single "online" pass (running max, sum rescaled when it grows),
//           reduced with warp shuffles instead of a shared-memory tree. Two
//           reads of the row instead of three, and 2 barriers instead of ~18.
// Expected: ok (same math, different summation order: within fp32 tolerance)
#include <kbexamples/kernels.h>

#include <cfloat>

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Merges two (max, sum of exp(x - max)) pairs.
__device__ void combine(float& m, float& s, float m2, float s2) {
  float nm = fmaxf(m, m2);
  // An empty partial has m == -FLT_MAX and s == 0; expf of a huge negative
  // number is 0, so it contributes nothing.
  s = s * expf(m - nm) + s2 * expf(m2 - nm);
  m = nm;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float warp_m[kWarps], warp_s[kWarps];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  int t = threadIdx.x, lane = t % 32, warp = t / 32;

  float m = -FLT_MAX, s = 0.0f;
  for (int c = t; c < cols; c += kThreads) {
    float v = xr[c];
    if (v > m) {
      s = s * expf(m - v) + 1.0f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  for (int off = 16; off > 0; off >>= 1)
    combine(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
  if (lane == 0) {
    warp_m[warp] = m;
    warp_s[warp] = s;
  }
  __syncthreads();
  // Every thread folds the few warp partials itself: cheaper than another
  // round trip through shared memory and a second barrier.
  m = warp_m[0];
  s = warp_s[0];
  for (int w = 1; w < kWarps; ++w) combine(m, s, warp_m[w], warp_s[w]);

  float inv = 1.0f / s;
  for (int c = t; c < cols; c += kThreads) yr[c] = expf(xr[c] - m) * inv;
}

void softmax_rows(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_rows_kernel<<<rows, kThreads>>>(x, y, cols);
}
