// A synthesized-style harness of one launcher, `void run(int M, int N,
// float* C)`, with the given size chain (`.size(...)` calls after `h`): the
// harness the launch-reach and boundary-shape tests read.
#pragma once

#include <string>

inline std::string run_harness(const std::string& sizes) {
  return "#include <kernelblaster/harness.h>\n"
         "void run(int M, int N, float * C);\n"
         "int main(int argc, char** argv) {\n"
         "  using namespace kernelblaster;\n"
         "  Harness h(\"run\");\n"
         "  h" + sizes + "\n"
         "      .inout(\"C\", DType::f32, {\"C_elements\"})\n"
         "      .launch([](Call& c) {\n"
         "        run(\n"
         "            static_cast<int>(c.dim(\"M\")),\n"
         "            static_cast<int>(c.dim(\"N\")),\n"
         "            c.out<float>(\"C\"));\n"
         "      });\n"
         "  return h.main(argc, argv);\n"
         "}\n";
}
