// Harness for matmul: C (M x N) = A (M x K) * B (K x N), fp32.
#include <kernelblaster/harness.h>
#include <kbexamples/kernels.h>

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("matmul");
  h.size("small", {{"M", 128}, {"N", 192}, {"K", 96}})
      .size("large", {{"M", 1024}, {"N", 1024}, {"K", 1024}})  // 2 GFLOP
      .validation_size("odd", {{"M", 257}, {"N", 131}, {"K", 99}})  // no extent a multiple of 16
      .input("A", DType::f32, {"M", "K"}, Distribution::uniform(-1, 1))
      .input("B", DType::f32, {"K", "N"}, Distribution::uniform(-1, 1))
      .output("C", DType::f32, {"M", "N"})
      .launch([](Call& c) {
        matmul(c.in<float>("A"), c.in<float>("B"), c.out<float>("C"), (int)c.dim("M"), (int)c.dim("N"),
               (int)c.dim("K"));
      })
      .flops([](const Dims& d) { return 2.0 * d.at("M") * d.at("N") * d.at("K"); })
      .bytes([](const Dims& d) {
        return 4.0 * (d.at("M") * d.at("K") + d.at("K") * d.at("N") + d.at("M") * d.at("N"));
      });
  return h.main(argc, argv);
}
