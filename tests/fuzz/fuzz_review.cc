// The KB review a model proposes (the textual-gradient update): refused with
// one line, or valid, and then the KB it makes is still a valid KB file.
#include <cstdio>
#include <cstdlib>

#include "fuzz_check.h"
#include "kb/kb_store.h"
#include "optimize/knowledge_update.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelblaster;
  static const kb::KnowledgeBase seed = kb::load_kb(KERNELBLASTER_SEED_KB);
  fuzz::expect_one_line(data, size, [](const std::string& reply) {
    optimize::KnowledgeUpdate u = optimize::parse_knowledge_update(reply, seed);
    kb::KnowledgeBase edited = seed;
    optimize::apply_knowledge_update(edited, u, "sm_90");
    try {
      kb::parse_kb(kb::serialize_kb(edited), "edited.json");
    } catch (const std::exception& x) {
      std::fprintf(stderr, "an accepted review made an invalid KB: %s\n", x.what());
      std::abort();
    }
    optimize::knowledge_update_json(u);
  });
  return 0;
}
