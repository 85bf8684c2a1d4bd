// The plan the tool writes and the report a harness process writes (the
// report comes from a candidate's process: anything may be in it).
#include "common/protocol.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) { kernelblaster::report_from_json(t); });
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) { kernelblaster::plan_from_json(t); });
  return 0;
}
