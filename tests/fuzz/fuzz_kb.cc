// Knowledge-base files (the seed and users' KBs).
#include "fuzz_check.h"
#include "kb/kb_store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) { kernelblaster::kb::parse_kb(t, "kb.json"); });
  return 0;
}
