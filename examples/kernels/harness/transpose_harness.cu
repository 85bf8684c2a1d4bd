// Harness for transpose. Rows and cols differ in every size so that a
// candidate mixing them up cannot pass by symmetry.
#include <kernelblaster/harness.h>
#include <kbexamples/kernels.h>

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("transpose");
  h.size("small", {{"rows", 512}, {"cols", 768}})
      .size("large", {{"rows", 8192}, {"cols", 4096}})  // 128 MB in, 128 MB out
      .validation_size("odd", {{"rows", 1023}, {"cols", 517}})
      .input("in", DType::f32, {"rows", "cols"}, Distribution::normal(0, 1))
      // A transpose copies values, so nothing short of bit-exact is correct.
      .output("out", DType::f32, {"cols", "rows"}, Tolerance::exact())
      .launch([](Call& c) {
        transpose(c.in<float>("in"), c.out<float>("out"), (int)c.dim("rows"), (int)c.dim("cols"));
      })
      .bytes([](const Dims& d) { return 8.0 * d.at("rows") * d.at("cols"); });
  return h.main(argc, argv);
}
