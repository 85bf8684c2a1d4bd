#include <kernelblaster/harness.h>
#include "awkward.h"

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("scale");
  h.size("small", {{"n", 1 << 16}})
   .input("x", DType::f32, {"n"}, Distribution::normal(0, 1))
   .output("y", DType::f32, {"n"})
   .launch([](Call& c) { scale(c.in<float>("x"), c.out<float>("y"), 1.5f, static_cast<int>(c.dim("n"))); });
  return h.main(argc, argv);
}
