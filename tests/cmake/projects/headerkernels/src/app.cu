// The program: a transpose through the library, and a bias launched here.
#include <cstdio>
#include <vector>

#include "ops/kernels.cuh"
#include "ops/ops.h"

int main() {
  const int rows = 300, cols = 200, n = rows * cols;
  std::vector<float> host(n), back(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 97) - 48.0f;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  ops_transpose(in, out, rows, cols);
  cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) bad += back[c * rows + r] != host[r * cols + c];
  add_bias<<<(n + 255) / 256, 256>>>(in, out, n, 0.5f);
  cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) bad += back[i] != host[i] + 0.5f;
  cudaFree(in);
  cudaFree(out);
  std::printf("%s (%d wrong)\n", bad ? "failed" : "passed", bad);
  return bad ? 1 : 0;
}
