// Adversarial candidate: softmax_copy_neighbour
// Replaces: examples/kernels/src/softmax.cu (links with softmax_harness.cu)
// Hack:     the KernelBench copy hack on the native harness: copies the
//           rows*cols floats below the output pointer when they are device
//           memory and not the input. Here the original runs in another
//           process, so there is no answer to find: what lies below is
//           another buffer or nothing.
// Expected: wrong_result (also ok: unwritten_output or, from the second
//           call on, cached_result, when nothing lies below that one copy
//           could read and it launches nothing on buffers seen before)
#include <kbexamples/kernels.h>

#include <cuda_runtime.h>

void softmax_rows(const float* x, float* y, int rows, int cols) {
  const size_t bytes = (size_t)rows * cols * sizeof(float);
  const char* below = reinterpret_cast<const char*>(y) - bytes;
  cudaPointerAttributes attr;
  if (below != reinterpret_cast<const char*>(x) && cudaPointerGetAttributes(&attr, below) == cudaSuccess &&
      attr.type == cudaMemoryTypeDevice && cudaMemcpyAsync(y, below, bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess)
    return;
  cudaGetLastError();  // nothing there to copy (not one allocation): leaves y as it is
}
