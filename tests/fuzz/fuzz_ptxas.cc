// ptxas -v output (registers, spills per kernel).
#include "fuzz_check.h"
#include "profile/ptxas_info.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) { kernelblaster::profile::parse_ptxas_verbose(t); });
  return 0;
}
