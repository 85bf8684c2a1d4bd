// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: defines cudaDeviceSynchronize itself (the driver links the shared
// CUDA runtime, so this definition would take its place): the launcher only
// records its arguments, and the work happens inside the runtime's own
// synchronize, after the call's timing bracket closed.
// Expected: forbidden_code (it defines a symbol of a library the driver links).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

static const half* pending_in;
static half* pending_out;
static int64_t pending_n;

extern "C" cudaError_t cudaDeviceSynchronize() {
  if (pending_n > 0) relu<<<1024, 256>>>(pending_in, pending_out, pending_n);
  pending_n = 0;
  return cudaStreamSynchronize(0);
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  pending_in = static_cast<const half*>(input);
  pending_out = static_cast<half*>(output);
  pending_n = batch_size * dim;
}
