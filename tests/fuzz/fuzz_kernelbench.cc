// KernelBench-CUDA driver scanning and launcher parameters.
#include "fuzz_check.h"
#include "kernelbench/problem.h"
#include "kernelbench/prototype.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    kernelblaster::kernelbench::Prototype p;
    std::string why;
    kernelblaster::kernelbench::parse_driver(t, &p, &why);
    kernelblaster::kernelbench::parse_param(t.substr(0, 200), 0);
  });
  return 0;
}
