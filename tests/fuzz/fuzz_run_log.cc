// Tuning run logs (policy replay reads them).
#include "fuzz_check.h"
#include "tuner/run_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size,
                                       [](const std::string& t) { kernelblaster::tuner::run_log_from_json(t, "log.json"); });
  return 0;
}
