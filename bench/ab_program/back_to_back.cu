// One launch timed alone against the same launch timed in a burst of 100
// back to back (what a program's own event timing sees), for a tiled copy
// and a tiled transpose whose block has ROWS rows of 32 threads. Built twice
// (-DROWS=16, -DROWS=8) by back_to_back.sh to ask: does a block shape that
// makes one launch faster make a burst of launches slower? (issue 38, the
// transpose sample's 1.10x in the harness against 1.006x by its own timing.)
#include <algorithm>
#include <cstdio>
#include <vector>

#ifndef ROWS
#define ROWS 16
#endif
#include "tile_kernels.cuh"

template <typename Launch>
void measure(const char* name, Launch launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();  // warm up
  cudaDeviceSynchronize();
  std::vector<float> alone;
  for (int i = 0; i < 100; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    alone.push_back(ms * 1000.f);
  }
  std::sort(alone.begin(), alone.end());
  std::vector<float> burst;
  for (int rep = 0; rep < 11; ++rep) {
    cudaEventRecord(a);
    for (int i = 0; i < 100; ++i) launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    burst.push_back(ms * 10.f);  // microseconds per launch
  }
  std::sort(burst.begin(), burst.end());
  std::printf("%s rows=%d alone_us=%.3f burst_us=%.3f\n", name, ROWS, alone[50], burst[5]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  float *in, *out;
  cudaMalloc(&in, sizeof(float) * n * n);
  cudaMalloc(&out, sizeof(float) * n * n);
  cudaMemset(in, 0, sizeof(float) * n * n);
  dim3 grid(n / kTile, n / kTile), block(kTile, ROWS);
  measure("copy", [&] { tiled_copy<ROWS><<<grid, block>>>(out, in, n); });
  measure("transpose", [&] { tiled_transpose<ROWS><<<grid, block>>>(out, in, n, n); });
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
