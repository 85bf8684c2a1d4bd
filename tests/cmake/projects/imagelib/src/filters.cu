#include "imagelib.h"

__global__ void box_blur_kernel(const unsigned char* in, unsigned char* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int sum = 0, count = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = x + dx, yy = y + dy;
      if (xx >= 0 && xx < width && yy >= 0 && yy < height) {
        sum += in[yy * width + xx];
        ++count;
      }
    }
  out[y * width + x] = (unsigned char)(sum / count);
}

template <typename T>
__global__ void threshold_kernel(const T* in, T* out, int n, T level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > level ? T(1) : T(0);
}

__global__ void invert_kernel(const unsigned char* in, unsigned char* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned char)(255 - in[i]);
}

void box_blur(const unsigned char* in, unsigned char* out, int width, int height) {
  dim3 block(16, 16);
  dim3 grid((width + 15) / 16, (height + 15) / 16);
  box_blur_kernel<<<grid, block>>>(in, out, width, height);
}

void threshold(const float* in, float* out, int n, float level) {
  threshold_kernel<float><<<(n + 255) / 256, 256>>>(in, out, n, level);
}

// Only one of the project's tests calls this one.
void invert(const unsigned char* in, unsigned char* out, int n) {
  invert_kernel<<<(n + 255) / 256, 256>>>(in, out, n);
}
