// What an LLM replies: the candidate taken out of the reply, then checked
// against an original, both ways round. Findings are one printable line.
#include <cstdlib>

#include "fuzz_check.h"
#include "rewrite/code_blocks.h"
#include "rewrite/static_check.h"

namespace {

void one_line(const std::string& s) {
  for (char c : s)
    if (c == '\n' || c == '\r') {
      std::fprintf(stderr, "a finding that is not one line: [%s]\n", s.c_str());
      std::abort();
    }
}

const char* kOriginal =
    "#include <cuda_runtime.h>\n__global__ void k(float* y) { y[threadIdx.x] = 0; }\n"
    "void launch_gpu_implementation(void* out, int64_t n) { k<<<1, 32>>>((float*)out); }\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& reply) {
    using namespace kernelblaster::rewrite;
    Extraction e = extract_candidate(reply, "launch_gpu_implementation");
    one_line(e.why);
    for (const std::string& candidate : {reply, e.code}) {
      std::vector<Finding> f = check_candidate(candidate, kOriginal);
      for (const Finding& x : f) one_line(x.detail);
      one_line(findings_line(f));
    }
    check_candidate(kOriginal, reply);
  });
  return 0;
}
