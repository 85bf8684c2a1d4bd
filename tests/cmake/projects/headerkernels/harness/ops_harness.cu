// Harness for src/ops.cu: both host functions, on sizes where rows and cols
// differ so that a transpose that mixes them up cannot pass by symmetry.
#include <kernelblaster/harness.h>

#include "ops/ops.h"

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("ops");
  h.size("small", {{"rows", 512}, {"cols", 768}})
      .size("large", {{"rows", 4096}, {"cols", 8192}})
      .validation_size("odd", {{"rows", 1023}, {"cols", 517}})
      .input("in", DType::f32, {"rows", "cols"}, Distribution::normal(0, 1))
      .output("t", DType::f32, {"cols", "rows"}, Tolerance::exact())
      .output("b", DType::f32, {"rows", "cols"}, Tolerance::exact())
      .launch([](Call& c) {
        const int rows = (int)c.dim("rows"), cols = (int)c.dim("cols");
        ops_transpose(c.in<float>("in"), c.out<float>("t"), rows, cols);
        ops_bias(c.in<float>("in"), c.out<float>("b"), rows * cols, 1.5f);
      })
      .bytes([](const Dims& d) { return 16.0 * d.at("rows") * d.at("cols"); });
  return h.main(argc, argv);
}
