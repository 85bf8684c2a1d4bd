// Shipped policies on the contexts the tuner really builds (first_context
// over a shipped example's space), not on hand-made ones: a rule that keys
// on a setting every action carries changes nothing in a real run.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "policy/lua_policy.h"
#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/flag_space.h"
#include "tuner/search_loop.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;

namespace {

policy::Context softmax_context(const std::string& arch) {
  std::ifstream in(std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src/softmax.cu");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SpaceDecl d = parse_directives(text, "softmax.cu", "sm_90");
  static ConfigSpace space;  // first_context keeps no reference, but keep it alive anyway
  space = enumerate_space(d, d.flags_declared ? d.flags : default_flag_dimensions("sm_90"));
  LoopOptions opt;
  opt.facts.kernel = "softmax.cu";
  opt.facts.arch = arch;
  opt.facts.metrics = {{"achieved_occupancy_pct", 60}};  // not low: the plain boost
  return first_context(space, {}, opt);
}

bool occupancy_related(const policy::Action& a) {
  auto flags = a.settings.find("flags");
  return a.technique.find("block_size_adaptation") != std::string::npos ||
         a.technique.find("register_pressure_reduction") != std::string::npos ||
         (flags != a.settings.end() && flags->second.find("maxrregcount") != std::string::npos);
}

int first_picks_occupancy(const std::string& policy_name, const std::string& arch) {
  auto p = policy::load_lua_policy_file(std::string(KERNELBLASTER_POLICIES_DIR) + "/" + policy_name + ".lua");
  policy::Context ctx = softmax_context(arch);
  int n = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    ctx.seed = seed;
    std::string first = p->select(ctx).front();
    for (const policy::Action& a : ctx.actions)
      if (a.id == first && occupancy_related(a)) ++n;
  }
  return n;
}

}  // namespace

TEST(PolicyContexts, TheTunerPutsEveryTunableIntoEveryAction) {
  policy::Context ctx = softmax_context("sm_90");
  ASSERT_FALSE(ctx.actions.empty());
  int related = 0;
  for (const policy::Action& a : ctx.actions) {
    EXPECT_EQ(a.settings.count("BLOCK_SIZE"), 1u) << a.id;  // defaults included
    related += occupancy_related(a);
  }
  // Only some actions change the block size or the register cap.
  EXPECT_GT(related, 0);
  EXPECT_LT(related, static_cast<int>(ctx.actions.size()));
}

TEST(PolicyContexts, PreferOccupancyChangesRealRunsOnSm90Only) {
  // Most of softmax's actions change the block size or the register cap,
  // so the boost shows in how rarely anything else comes first: with every
  // action boosted alike (the old rule) nothing would change at all.
  int plain = first_picks_occupancy("weighted_random", "sm_90");
  int boosted = first_picks_occupancy("prefer_occupancy_sm90", "sm_90");
  EXPECT_LT(300 - boosted, (300 - plain) / 2) << plain << " vs " << boosted << " of 300";
  EXPECT_EQ(first_picks_occupancy("prefer_occupancy_sm90", "sm_80"), plain);  // the same draws elsewhere
}
