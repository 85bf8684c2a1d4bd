// Adversarial candidate: reads_reference_dumps
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     computes nothing; on its k-th call it reads the original's dump of
//           that run from the evaluation's work directory
//           (../../reference/main/run<k>_c.bin, beside its own run
//           directory) and copies it into c, so every checked run matches.
// Expected: forbidden_code (its object calls fopen); with the bound off,
//           unwritten_output or wrong_result: the original's run directory is
//           an empty directory in the candidate's own view of the file system.
#include <kbexamples/kernels.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

void vector_add(const float* a, const float* b, float* c, int n) {
  static int call = 0;
  char path[128];
  std::snprintf(path, sizeof path, "../../reference/main/run%d_c.bin", call++);
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return;
  std::vector<float> answer(static_cast<size_t>(n));
  const size_t got = std::fread(answer.data(), sizeof(float), answer.size(), f);
  std::fclose(f);
  if (got == answer.size()) cudaMemcpy(c, answer.data(), got * sizeof(float), cudaMemcpyHostToDevice);
}
