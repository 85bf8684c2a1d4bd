// What a well-behaved script sees and how its answers come back.
#include <gtest/gtest.h>

#include <set>

#include "policy/lua_guards.h"
#include "policy/lua_policy.h"
#include "tuner/sample_contexts.h"

namespace kernelblaster::policy {
namespace {

using tuner::sample_contexts;
using tuner::sample_result;
using tuner::SampleContext;

Context sample(const std::string& name, std::uint64_t seed = 1) {
  for (SampleContext& s : sample_contexts(seed)) {
    if (s.name == name) return s.ctx;
  }
  throw std::runtime_error("no sample " + name);
}

TEST(LuaPolicy, SeesTheContext) {
  auto p = load_lua_policy("probe", R"lua(
    function select(ctx)
      assert(ctx.kernel == "softmax.cu" and ctx.state == "memory_bound" and ctx.arch == "sm_90")
      assert(ctx.gpu:find("H100", 1, true))
      assert(ctx.metrics.dram_throughput_pct == 86)
      assert(math.type(ctx.evaluations_left) == "integer" and ctx.seconds_left == 420)
      assert(ctx.best_speedup == 1.31 and ctx.seed == 5)
      local h = ctx.history[5]
      assert(h.action_id == "BLOCK_SIZE=256,ITEMS=4" and h.status == "ok" and h.accepted)
      assert(h.settings.ITEMS == "4" and h.technique == "block_size_adaptation+thread_coarsening")
      assert(ctx.history[3].status == "wrong_result" and ctx.history[3].speedup == 0)
      assert(h.slowed_kernel_speedup == 0 and ctx.history[4].slowed_kernel_speedup == 0.97)
      -- As the tuner builds it: every tunable in every action, defaults
      -- included; the technique of what the action changes.
      local a = ctx.actions[1]
      assert(a.id == "ITEMS=4" and a.settings.BLOCK_SIZE == "128" and a.settings.ITEMS == "4")
      assert(a.technique == "thread_coarsening")
      assert(math.type(a.kb.tries) == "integer" and a.kb.predicted_speedup > 1.0)
      -- The original's settings: the source as written.
      assert(ctx.original.BLOCK_SIZE == "128" and ctx.original.ITEMS == "1" and ctx.original.flags == nil)
      return a.id
    end)lua");
  Context ctx = sample("with_history", 5);
  ctx.history[3].slowed_kernel_speedup = 0.97;  // a try that made one of the call's kernels slower
  EXPECT_EQ(p->select(ctx), std::vector<std::string>{ctx.actions.front().id});
}

TEST(LuaPolicy, ReturnsAListInOrder) {
  auto p = load_lua_policy("rev", R"lua(
    function select(ctx)
      local ids = {}
      for i = #ctx.actions, 1, -1 do ids[#ids + 1] = ctx.actions[i].id end
      return ids
    end)lua");
  Context ctx = sample("compute_bound_flags");
  std::vector<std::string> ids = p->select(ctx);
  ASSERT_EQ(ids.size(), ctx.actions.size());
  EXPECT_EQ(ids.front(), ctx.actions.back().id);
  EXPECT_EQ(ids.back(), ctx.actions.front().id);
}

TEST(LuaPolicy, AcceptAndStopAreOptional) {
  auto p = load_lua_policy("min", "function select(ctx) return ctx.actions[1].id end");
  Context ctx = sample("memory_bound");
  EXPECT_EQ(p->accept(ctx, sample_result(ctx, ctx.actions.front().id)), std::nullopt);
  EXPECT_EQ(p->stop(ctx), std::nullopt);
}

TEST(LuaPolicy, AcceptSeesTheResult) {
  auto p = load_lua_policy("acc", R"lua(
    function select(ctx) return ctx.actions[1].id end
    function accept(ctx, r) return r.status == "ok" and r.speedup > ctx.best_speedup and r.settings.ITEMS == "1" end
    function stop(ctx) return #ctx.actions == 0 end)lua");
  Context ctx = sample("memory_bound");
  EXPECT_EQ(p->accept(ctx, sample_result(ctx, "BLOCK_SIZE=512")), true);  // ITEMS at its default, 1
  EXPECT_EQ(p->accept(ctx, sample_result(ctx, "ITEMS=2")), false);
  EXPECT_EQ(p->stop(ctx), false);
  EXPECT_EQ(p->stop(sample("end_of_search")), true);
}

TEST(LuaPolicy, EmptyActionsAllowAnEmptyOrNilSelection) {
  Context ctx = sample("end_of_search");
  EXPECT_TRUE(load_lua_policy("a", "function select(ctx) return {} end")->select(ctx).empty());
  EXPECT_TRUE(load_lua_policy("b", "function select(ctx) return nil end")->select(ctx).empty());
}

TEST(LuaPolicy, RandomIsSeededFromTheContext) {
  const char* script = "function select(ctx) return ctx.actions[math.random(#ctx.actions)].id end";
  std::set<std::string> picks;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Context ctx = sample("memory_bound", seed);
    std::vector<std::string> first = load_lua_policy("r", script)->select(ctx);
    EXPECT_EQ(load_lua_policy("r", script)->select(ctx), first) << "seed " << seed;  // fresh state, same pick
    picks.insert(first.front());
  }
  EXPECT_GT(picks.size(), 3u);  // the seed matters
  // The history length is part of the seed: the next round is a fresh draw.
  const char* draw = "function select(ctx) return ctx.actions[1].id end\n"
                     "function stop(ctx) return math.random(1 << 40) % 2 == 0 end";
  int changed = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Context ctx = sample("memory_bound", seed);
    std::optional<bool> before = load_lua_policy("r", draw)->stop(ctx);
    ctx.history.push_back(HistoryEntry{});
    if (load_lua_policy("r", draw)->stop(ctx) != before) ++changed;
  }
  EXPECT_GT(changed, 2);
}

TEST(LuaPolicy, RandomseedWithoutASeedIsRefused) {
  auto p = load_lua_policy("r", "function select(ctx) math.randomseed() end");
  Context ctx = sample("memory_bound");
  EXPECT_THROW(p->select(ctx), PolicyError);
}

TEST(LuaPolicy, ScriptGlobalsDoNotHideTheBaseLibrary) {
  auto p = load_lua_policy("g", R"lua(
    function select(ctx) return _G.select(2, "a", ctx.actions[3].id) end)lua");
  Context ctx = sample("memory_bound");
  EXPECT_EQ(p->select(ctx), std::vector<std::string>{ctx.actions[2].id});
}

TEST(LuaPolicy, StateSurvivesBetweenCalls) {
  auto p = load_lua_policy("count", R"lua(
    local calls = 0
    function select(ctx) calls = calls + 1 return ctx.actions[calls].id end)lua");
  Context ctx = sample("memory_bound");
  EXPECT_EQ(p->select(ctx).front(), ctx.actions[0].id);
  EXPECT_EQ(p->select(ctx).front(), ctx.actions[1].id);
}

TEST(LuaPolicy, PrintGoesToStderrNotStdout) {
  testing::internal::CaptureStdout();
  auto p = load_lua_policy("talk", "function select(ctx) for i = 1, 500 do print('hello', i) end return ctx.actions[1].id end");
  Context ctx = sample("memory_bound");
  EXPECT_EQ(p->select(ctx).size(), 1u);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
}

TEST(LuaPolicy, OrdinaryPatternsAreAllowed) {
  auto p = load_lua_policy("pat", R"lua(
    function select(ctx)
      local n = 0
      for _, a in ipairs(ctx.actions) do
        for k, v in a.id:gmatch("([%w_]+)=([^,]*)") do n = n + 1 end
        assert(("  x  "):match("^%s*(.-)%s*$") == "x")
        assert(a.id:gsub("%d+", "N"):find("=N", 1, true))
      end
      assert(n >= #ctx.actions)
      return ctx.actions[1].id
    end)lua");
  Context ctx = sample("memory_bound");
  EXPECT_EQ(p->select(ctx).size(), 1u);
}

TEST(LuaPolicy, PatternWorstCaseBound) {
  EXPECT_LT(pattern_worst_case_steps("abc", 3, 100), 1e3);
  EXPECT_LT(pattern_worst_case_steps("([%w_]+)=([^,]*)", 16, 40), 1e6);
  EXPECT_GT(pattern_worst_case_steps("a*a*a*a*a*a*b", 13, 1000), 1e18);
  EXPECT_LT(pattern_worst_case_steps("%-%*%+", 6, 1000), 1e4);  // escaped, not repetitions
  EXPECT_LT(pattern_worst_case_steps("[*+-]", 5, 1000), 1e4);   // inside a set, not repetitions
}

}  // namespace
}  // namespace kernelblaster::policy
