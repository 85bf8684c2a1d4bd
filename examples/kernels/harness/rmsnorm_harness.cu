// Harness for rmsnorm (fp16 storage, fp32 accumulation).
#include <kernelblaster/harness.h>
#include <kbexamples/kernels.h>

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("rmsnorm");
  h.size("small", {{"rows", 1024}, {"cols", 1024}})
      .size("large", {{"rows", 8192}, {"cols", 4096}})  // 64 MB in, 64 MB out
      .validation_size("odd", {{"rows", 257}, {"cols", 1031}})
      .input("x", DType::f16, {"rows", "cols"}, Distribution::normal(0, 1))
      // Weights near 1, as trained norms are; never zero, so a candidate that
      // ignores the weight cannot hide behind it.
      .input("weight", DType::f16, {"cols"}, Distribution::uniform(0.5, 1.5))
      .output("y", DType::f16, {"rows", "cols"})
      .launch([](Call& c) {
        rmsnorm(c.in<__half>("x"), c.in<__half>("weight"), c.out<__half>("y"), (int)c.dim("rows"),
                (int)c.dim("cols"), 1e-6f);
      })
      .flops([](const Dims& d) { return 4.0 * d.at("rows") * d.at("cols"); })
      .bytes([](const Dims& d) { return 4.0 * d.at("rows") * d.at("cols") + 2.0 * d.at("cols"); });
  return h.main(argc, argv);
}
