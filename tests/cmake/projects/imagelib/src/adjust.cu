#include "imagelib.h"

__global__ void brighten_kernel(const unsigned char* in, unsigned char* out, int width, int height, float gain) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < width && y < height) {
    float v = in[y * width + x] * gain;
    out[y * width + x] = (unsigned char)(v > 255.0f ? 255.0f : v);
  }
}

__global__ void sum_kernel(const unsigned char* in, int pixels, float* sum) {
  float local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += gridDim.x * blockDim.x) local += in[i];
  atomicAdd(sum, local);
}

void brighten(const unsigned char* in, unsigned char* out, int width, int height, float gain) {
  dim3 grid((width + 127) / 128, height);
  brighten_kernel<<<grid, 128>>>(in, out, width, height, gain);
}

float mean_brightness(const unsigned char* in, int pixels) {
  float* sum = nullptr;
  cudaMalloc(&sum, sizeof(float));
  cudaMemset(sum, 0, sizeof(float));
  sum_kernel<<<64, 256>>>(in, pixels, sum);
  float host = 0;
  cudaMemcpy(&host, sum, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(sum);
  return host / pixels;
}
