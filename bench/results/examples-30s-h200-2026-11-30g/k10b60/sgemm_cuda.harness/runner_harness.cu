// Harness for runSgemmWarptiling (/tmp/oneline/sgemm_cuda/src/runner.cu), synthesized by `kernelblaster harness synth`
// from 12 recorded call(s), 6 distinct: the sizes are calls the program made, the inputs fresh
// seeded values of the recorded shapes and types, the outputs what the calls
// changed, compared at the element types' default tolerances.
#include <kernelblaster/harness.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

void runSgemmWarptiling(int M, int N, int K, float alpha, float * A, float * B, float beta, float * C);

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("runSgemmWarptiling");
  h.size("call5", {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"A_elements", 16777216}, {"B_elements", 16777216}, {"C_elements", 16777216}})
      .size("call4", {{"M", 2048}, {"N", 2048}, {"K", 2048}, {"A_elements", 16777216}, {"B_elements", 16777216}, {"C_elements", 16777216}})
      .validation_size("call3", {{"M", 1024}, {"N", 1024}, {"K", 1024}, {"A_elements", 16777216}, {"B_elements", 16777216}, {"C_elements", 16777216}})
      .validation_size("call2", {{"M", 512}, {"N", 512}, {"K", 512}, {"A_elements", 16777216}, {"B_elements", 16777216}, {"C_elements", 16777216}})
      .validation_size("call1", {{"M", 256}, {"N", 256}, {"K", 256}, {"A_elements", 16777216}, {"B_elements", 16777216}, {"C_elements", 16777216}})
      .validation_size("call0", {{"M", 128}, {"N", 128}, {"K", 128}, {"A_elements", 16777216}, {"B_elements", 16777216}, {"C_elements", 16777216}})
      .input("A", DType::f32, {"A_elements"}, Distribution::normal(0, 1))  // extent as recorded: no product of the launcher's sizes gives it
      .input("B", DType::f32, {"B_elements"}, Distribution::normal(0, 1))  // extent as recorded: no product of the launcher's sizes gives it
      .inout("C", DType::f32, {"C_elements"}, Distribution::normal(0, 1))  // extent as recorded: no product of the launcher's sizes gives it
      .launch([](Call& c) {
        runSgemmWarptiling(
            static_cast<int>(c.dim("M")),
            static_cast<int>(c.dim("N")),
            static_cast<int>(c.dim("K")),
            static_cast<float>(0.5),
            const_cast<float*>(c.in<float>("A")),
            const_cast<float*>(c.in<float>("B")),
            static_cast<float>(3),
            c.out<float>("C"));
      });
  return h.main(argc, argv);
}
