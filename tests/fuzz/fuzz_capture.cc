// A capture file (harness/capture.h): written by a recording of someone's
// program, then read and turned into a harness's source text. Both steps
// must take anything: a refusal is one line, a synthesis never crashes.
#include "fuzz_check.h"
#include "harness/capture_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    kernelblaster::harness::synthesize_harness(kernelblaster::harness::parse_capture(t, "fuzz.json"));
  });
  return 0;
}
