// An image kernel written the way first versions often are (issue 27's
// shape): a literal block size, and the grid computed from the same literal
// in a variable before the launch. The tuner's discovery must move the grid
// with the block, or every smaller block leaves part of the image unwritten.
// kernelblaster: flags none
#include <cuda_runtime.h>

__global__ void brighten(const unsigned char* in, unsigned char* out, int width, int height, float gain) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < width && y < height) {
    float v = in[(size_t)y * width + x] * gain;
    out[(size_t)y * width + x] = (unsigned char)(v > 255.0f ? 255.0f : v);
  }
}

void brighten_image(const unsigned char* in, unsigned char* out, int width, int height, float gain) {
  dim3 grid((width + 127) / 128, height);
  brighten<<<grid, 128>>>(in, out, width, height, gain);
}
