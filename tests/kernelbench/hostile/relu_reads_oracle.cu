// Hostile candidate for level1/019_ReLU of the published dataset.
// Hack: computes nothing; on its k-th call it reads what the original's
// driver process left in the evaluation's work directory (torch's answer
// or init.cu's output of run k, beside its own run directory) and copies
// it into the output.
// Expected: forbidden_code (its object calls file functions); with the
// bound off, unwritten_output or wrong_result: the original's run directory
// is empty in the candidate's own view of the file system.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
  static int call = 0;
  const size_t bytes = static_cast<size_t>(batch_size * dim) * 2;  // fp16
  std::vector<char> answer(bytes);
  for (const char* pattern : {"../../reference/main/run%d_output.oracle.bin", "../../reference/main/run%d_output.bin"}) {
    char path[160];
    std::snprintf(path, sizeof path, pattern, call);
    std::FILE* f = std::fopen(path, "rb");
    if (!f) continue;
    const size_t got = std::fread(answer.data(), 1, bytes, f);
    std::fclose(f);
    if (got == bytes) {
      cudaMemcpy(output, answer.data(), bytes, cudaMemcpyHostToDevice);
      break;
    }
  }
  ++call;
  (void)input;
}
