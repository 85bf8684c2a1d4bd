// A kernel source as the search reads it: directives, discovered tunables
// and the literal-block rewrite.
#include "fuzz_check.h"
#include "search/directives.h"
#include "search/discovery.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    using namespace kernelblaster::search;
    SpaceDecl decl = parse_directives(t, "k.cu", "sm_90");
    add_discovered_space(decl, t, "k.cu");
    prepare_literal_blocks(t, "/k.cu", decl);
  });
  return 0;
}
