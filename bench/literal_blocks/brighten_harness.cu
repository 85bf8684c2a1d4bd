// Harness for brighten_image: out = min(255, in * gain), one byte per pixel.
#include <kernelblaster/harness.h>

void brighten_image(const unsigned char* in, unsigned char* out, int width, int height, float gain);

int main(int argc, char** argv) {
  using namespace kernelblaster;
  Harness h("brighten");
  h.size("hd", {{"w", 1920}, {"h", 1080}})
      .size("8k", {{"w", 7680}, {"h", 4320}})
      .validation_size("odd", {{"w", 1001}, {"h", 7}})
      .input("in", DType::u8, {"w", "h"}, Distribution::integers(0, 255))
      .output("out", DType::u8, {"w", "h"})
      .launch([](Call& c) {
        brighten_image(c.in<unsigned char>("in"), c.out<unsigned char>("out"), (int)c.dim("w"), (int)c.dim("h"), 1.5f);
      })
      .bytes([](const Dims& d) { return 2.0 * d.at("w") * d.at("h"); });
  return h.main(argc, argv);
}
