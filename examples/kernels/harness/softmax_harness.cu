// Harness for softmax_rows. normal(0, 3) inputs make rows peaky enough that
// skipping the max subtraction or the normalization shows up.
#include <kernelblaster/harness.h>
#include <kbexamples/kernels.h>

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("softmax");
  h.size("small", {{"rows", 1024}, {"cols", 1000}})
      .size("large", {{"rows", 4096}, {"cols", 4096}})  // 64 MB in, 64 MB out
      .validation_size("odd", {{"rows", 333}, {"cols", 1237}})
      .input("x", DType::f32, {"rows", "cols"}, Distribution::normal(0, 3))
      .output("y", DType::f32, {"rows", "cols"})
      .launch([](Call& c) {
        softmax_rows(c.in<float>("x"), c.out<float>("y"), (int)c.dim("rows"), (int)c.dim("cols"));
      })
      .flops([](const Dims& d) { return 5.0 * d.at("rows") * d.at("cols"); })
      .bytes([](const Dims& d) { return 8.0 * d.at("rows") * d.at("cols"); });
  return h.main(argc, argv);
}
