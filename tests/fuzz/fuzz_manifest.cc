// The manifest CMake writes (line form) or a user writes (JSON).
#include "judge/manifest.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) { kernelblaster::parse_manifest(t, "m"); });
  return 0;
}
