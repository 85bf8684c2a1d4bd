// The recorded-calls file the shims append to (harness/capture_gather.h):
// written by whatever programs of the user's project ran, read by the build
// step of a source with no harness. Gathering takes anything (a bad line is
// counted, never thrown); every capture it returns must synthesize a
// harness or refuse in one line.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "fuzz_check.h"
#include "harness/capture_gather.h"
#include "harness/capture_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/kb-fuzz-recorded-calls-" + std::to_string(::getpid()) + ".jsonl";
  static const bool cleaned_at_exit = [] { return std::atexit([] { std::remove(path.c_str()); }) == 0; }();
  (void)cleaned_at_exit;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  kernelblaster::harness::Gathered g = kernelblaster::harness::gather_recorded_calls(path);
  for (const kernelblaster::harness::Capture& c : g.captures)
    kernelblaster::fuzz::expect_one_line(data, size, [&](const std::string&) { kernelblaster::harness::synthesize_harness(c); });
  for (const std::string& e : g.errors)
    if (e.empty() || e.find('\n') != std::string::npos) std::abort();
  return 0;
}
