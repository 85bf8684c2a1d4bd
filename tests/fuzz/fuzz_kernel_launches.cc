// A kernel recorder's file (recorder/launch_line.h): written into the build
// tree while someone's program runs, then read by the build step, turned into
// a launcher the harness defines and into the harness's source text. Every
// step must take anything: an unreadable line is one line in the errors, a
// recording no harness can replay a one-line refusal, and nothing read may
// reach the harness text as code.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fuzz_check.h"
#include "harness/capture_harness.h"
#include "harness/kernel_capture.h"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("kb-fuzz-launches-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    using namespace kernelblaster::harness;
    std::ofstream(scratch() / "k_0000000000000000.jsonl", std::ios::trunc) << t;
    KernelRecords records = read_kernel_records(scratch().string());
    for (const std::string& e : records.errors)
      if (e.empty() || e.find('\n') != std::string::npos) {
        std::fprintf(stderr, "an error that is not one line: [%s]\n", e.c_str());
        std::abort();
      }
    for (const KernelRecording& r : records.kernels) {
      KernelCapture kc = kernel_capture(r, "fuzz.cu");
      HarnessDraft d = synthesize_harness({kc.capture}, {kc.definition});
      // What came from the file stays inside a string literal or a comment.
      if (d.text.find("\n#") != std::string::npos && d.text.find("\n#include") == std::string::npos) std::abort();
    }
  });
  return 0;
}
