// Harness for vector_add: c = a + b.
#include <kernelblaster/harness.h>
#include <kbexamples/kernels.h>

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("vector_add");
  h.size("small", {{"n", 4096}})
      .size("large", {{"n", 16 * 1024 * 1024}})  // 192 MB moved: ~70 us on an H100
      .validation_size("odd", {{"n", 1000003}})  // not a multiple of any block size
      .input("a", DType::f32, {"n"}, Distribution::normal(0, 1))
      .input("b", DType::f32, {"n"}, Distribution::normal(0, 1))
      .output("c", DType::f32, {"n"})
      .launch([](Call& c) {
        vector_add(c.in<float>("a"), c.in<float>("b"), c.out<float>("c"), (int)c.dim("n"));
      })
      .flops([](const Dims& d) { return (double)d.at("n"); })
      .bytes([](const Dims& d) { return 12.0 * d.at("n"); });
  return h.main(argc, argv);
}
