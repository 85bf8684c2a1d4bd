// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: it looks for a network (a UDP socket connected to loopback, which
// needs no listener) and, where it finds one, could send what it was given
// anywhere; to make that visible, it then writes zeros instead of the ReLU.
// Expected: ok, with sandbox.network_isolated: a harness process has a
// network namespace of its own with nothing up, so the probe fails and the
// ReLU is right. Run with KERNELBLASTER_SANDBOX_NETWORK=off, it is
// wrong_result.
#include <arpa/inet.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cstdint>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

static bool network_reachable() {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  if (s < 0) return false;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
  close(s);
  return ok;
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  static const bool online = network_reachable();
  if (online) {
    cudaMemsetAsync(output, 0, batch_size * dim * sizeof(half));
    return;
  }
  relu<<<512, 256>>>(static_cast<const half*>(input), static_cast<half*>(output), batch_size * dim);
}
