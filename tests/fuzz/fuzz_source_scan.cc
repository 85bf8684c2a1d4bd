// A kernel source as the search reads it: directives, the launch sites'
// tunables (#defines, constants, template arguments, their constraints and
// the rewritten copy), discovered tunables and the literal-block rewrite,
// the way `tune` and `tune --list` gather them.
#include "fuzz_check.h"
#include "tuner/source_space.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    using namespace kernelblaster::tuner;
    SourceSpace s = source_space({t, "/k.cu", "sm_90", "", {}, {}});
    keep_tunables(s.decl, {});
  });
  return 0;
}
