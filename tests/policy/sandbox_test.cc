// Hostile scripts: each ends in the default policy within 1 s, with a clear
// one-line message, and without touching anything outside the sandbox.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "policy/default_policy.h"
#include "policy/lua_policy.h"
#include "tuner/sample_contexts.h"

namespace kernelblaster::policy {
namespace {

using tuner::sample_contexts;
using tuner::sample_result;
using tuner::SampleContext;

std::vector<std::string>& logged() {
  static std::vector<std::string> lines;
  return lines;
}
void log_line(const std::string& line) { logged().push_back(line); }

Context memory_bound() { return sample_contexts(1).front().ctx; }

enum class Call { select, accept, stop };

struct Outcome {
  std::string failure;
  bool fell_back = false;
  double seconds = 0;
  std::vector<std::string> chosen;
};

// Loads `script` guarded by the default policy and makes one call.
Outcome run(const std::string& script, Call call = Call::select, const SandboxLimits& limits = {}) {
  logged().clear();
  Context ctx = memory_bound();
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<GuardedPolicy> p = guard_lua_policy("bad", script, log_line, limits);
  Outcome out;
  if (call == Call::select) out.chosen = p->select(ctx);
  if (call == Call::accept) p->accept(ctx, sample_result(ctx, ctx.actions.front().id));
  if (call == Call::stop) p->stop(ctx);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.failure = p->failure();
  out.fell_back = p->fell_back();
  return out;
}

// The common assertions: fell back in time, said `message`, logged once.
void expect_fallback(const Outcome& out, const std::string& message) {
  EXPECT_TRUE(out.fell_back);
  EXPECT_EQ(out.failure, message);
  EXPECT_LT(out.seconds, 1.0);
  ASSERT_EQ(logged().size(), 1u);
  EXPECT_EQ(logged().front().find(message), 0u) << logged().front();
  EXPECT_EQ(out.failure.find('\n'), std::string::npos);
}

std::string scratch_path(const std::string& name) {
  auto path = std::filesystem::temp_directory_path() / ("kb_policy_test_" + name);
  std::filesystem::remove(path);
  return path.string();
}

TEST(Sandbox, InfiniteLoopHitsTheInstructionLimit) {
  Outcome out = run("function select(ctx) while true do end end");
  expect_fallback(out, "bad: select(): instruction limit exceeded");
  EXPECT_EQ(out.chosen, make_default_policy()->select(memory_bound()));  // the default's choice
}

TEST(Sandbox, InfiniteLoopAtLoadTime) {
  expect_fallback(run("while true do end"), "bad: load: instruction limit exceeded");
}

TEST(Sandbox, PcallCannotSwallowALimit) {
  expect_fallback(run("function select(ctx) while true do pcall(function() while true do end end) end end"),
                  "bad: select(): instruction limit exceeded");
}

TEST(Sandbox, DeadlineStopsALoopUnderAHugeInstructionBudget) {
  SandboxLimits limits;
  limits.instructions = std::int64_t{1} << 50;
  limits.seconds = 0.2;
  Outcome out = run("function select(ctx) local x = 0 while true do x = x + 1 end end", Call::select, limits);
  expect_fallback(out, "bad: select(): deadline exceeded (0.2 s + 50.0 us for each of 14 actions)");
  EXPECT_GE(out.seconds, 0.2);
}

TEST(Sandbox, IoOpenIsBlockedAndCreatesNothing) {
  std::string path = scratch_path("io_open");
  expect_fallback(run("function select(ctx)\n  local f = io.open('" + path + "', 'w')\n  f:write('x')\n  f:close()\nend"),
                  "bad: select(): io.open is not available in the policy sandbox (line 2)");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Sandbox, OsExecuteIsBlockedAndRunsNothing) {
  std::string path = scratch_path("os_execute");
  expect_fallback(run("function select(ctx) os.execute('touch " + path + "') end"),
                  "bad: select(): os.execute is not available in the policy sandbox (line 1)");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Sandbox, RequireDofileAndDebugAreBlocked) {
  expect_fallback(run("function select(ctx) local io = require('io') end"),
                  "bad: select(): require is not available in the policy sandbox (line 1)");
  expect_fallback(run("dofile('/etc/passwd')\nfunction select(ctx) end"),
                  "bad: load: dofile is not available in the policy sandbox (line 1)");
  expect_fallback(run("function select(ctx) debug.sethook() end"),
                  "bad: select(): debug.sethook is not available in the policy sandbox (line 1)");
}

TEST(Sandbox, NoBytecode) {
  expect_fallback(run("function select(ctx) return string.dump(select) end"),
                  "bad: select(): string.dump is not available in the policy sandbox (line 1)");
  // load() of a binary chunk fails like any load() error; asserting it raises.
  Outcome out = run("function select(ctx) assert(load(string.char(27) .. 'LuaT\\0\\25\\147')) end");
  EXPECT_TRUE(out.fell_back);
  EXPECT_NE(out.failure.find("attempt to load a binary chunk"), std::string::npos) << out.failure;
  expect_fallback(run(std::string("\x1bLuaT\x00", 6)),
                  "bad: load: bytecode is not accepted; a policy loads from source text only");
}

TEST(Sandbox, LoadOfTextWorksInsideTheSandbox) {
  Outcome out = run("function select(ctx) local f = assert(load('return io.open')) return f() end");
  EXPECT_TRUE(out.fell_back);
  EXPECT_NE(out.failure.find("io.open is not available"), std::string::npos) << out.failure;
}

TEST(Sandbox, MemoryBomb) {
  expect_fallback(run("function select(ctx) local t = {} for i = 1, 1e9 do t[i] = i end end"),
                  "bad: select(): memory limit exceeded (32 MiB + 4 KiB for each of 14 actions)");
}

TEST(Sandbox, MemoryBombCaughtByPcallStillFails) {
  expect_fallback(run("function select(ctx)\n"
                      "  pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end)\n"
                      "  return ctx.actions[1].id\n"
                      "end"),
                  "bad: select(): memory limit exceeded (32 MiB + 4 KiB for each of 14 actions)");
}

TEST(Sandbox, StringRepBomb) {
  expect_fallback(run("function select(ctx) return string.rep('x', 2^40) end"),
                  "bad: select(): memory limit exceeded (32 MiB + 4 KiB for each of 14 actions)");
  expect_fallback(run("function select(ctx) return ('xy'):rep(2^30, ',') end"),
                  "bad: select(): memory limit exceeded (32 MiB + 4 KiB for each of 14 actions)");
}

TEST(Sandbox, DeepRecursion) {
  Outcome out = run("local function f(n) return f(n + 1) + 1 end\nfunction select(ctx) return f(1) end");
  EXPECT_TRUE(out.fell_back);
  EXPECT_LT(out.seconds, 1.0);
  // Lua's own stack limit or the memory cap, whichever comes first.
  EXPECT_TRUE(out.failure == "bad: select(): stack overflow (line 1)" ||
              out.failure == "bad: select(): memory limit exceeded (32 MiB + 4 KiB for each of 14 actions)")
      << out.failure;
}

TEST(Sandbox, DeepRecursionThroughCFunctions) {
  Outcome out = run("local function f(s) return (string.gsub(s, '.', f)) end\nfunction select(ctx) return f('x') end");
  EXPECT_TRUE(out.fell_back);
  EXPECT_LT(out.seconds, 1.0);
  EXPECT_NE(out.failure.find("stack overflow"), std::string::npos) << out.failure;
}

TEST(Sandbox, SyntaxError) {
  expect_fallback(run("function select(ctx)\n  return )\nend"),
                  "bad: load: syntax error: unexpected symbol near ')' (line 2)");
}

TEST(Sandbox, CFunctionsCannotOutrunTheHook) {
  // Work inside C functions is charged to the instruction budget up front.
  expect_fallback(run("function select(ctx) table.move({}, 1, 2^40, 1, {}) end"),
                  "bad: select(): instruction limit exceeded");
  expect_fallback(run("function select(ctx) local t = setmetatable({}, {__len = function() return 2^50 end})\n"
                      "table.insert(t, 1, 'x') end"),
                  "bad: select(): instruction limit exceeded");
  // A pattern that backtracks exponentially is refused before it runs.
  Outcome out = run("function select(ctx) return string.find(string.rep('a', 5000), string.rep('a*', 20) .. 'b') end");
  EXPECT_TRUE(out.fell_back);
  EXPECT_LT(out.seconds, 1.0);
  EXPECT_NE(out.failure.find("pattern too complex for the policy sandbox"), std::string::npos) << out.failure;
}

TEST(Sandbox, GarbageCollectorCannotBeStopped) {
  expect_fallback(run("function select(ctx) collectgarbage('stop') end"),
                  "bad: select(): collectgarbage('stop') is not available in the policy sandbox (line 1)");
}

TEST(Sandbox, SelectReturningGarbage) {
  expect_fallback(run("function select(ctx) return 42 end"),
                  "bad: select() returned a number (expected an action id or a list of ids)");
  expect_fallback(run("function select(ctx) return 'no such action' end"),
                  "bad: select() returned 'no such action', not one of ctx.actions");
  expect_fallback(run("function select(ctx) return { {}, {} } end"),
                  "bad: select() returned a list whose item 1 is a table, not an action id");
  expect_fallback(run("function select(ctx) end"),
                  "bad: select() returned nil (expected an action id or a list of ids)");
  expect_fallback(run("function select(ctx) return {} end"), "bad: select() returned no action");
  expect_fallback(run("function select(ctx) local id = ctx.actions[1].id return { id, id } end"),
                  "bad: select() returned 'ITEMS=2' twice");
  expect_fallback(run("function select(ctx) return string.rep('x', 1000) end"),
                  "bad: select() returned 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...', not one of ctx.actions");
}

TEST(Sandbox, ErrorsInAcceptAndStop) {
  const std::string select = "function select(ctx) return ctx.actions[1].id end\n";
  expect_fallback(run(select + "function accept(ctx, r) error('no opinion today') end", Call::accept),
                  "bad: accept(): no opinion today (line 2)");
  expect_fallback(run(select + "function stop(ctx) error({}) end", Call::stop),
                  "bad: stop(): error object is a table value");
  expect_fallback(run(select + "function stop(ctx) return 1 end", Call::stop),
                  "bad: stop() returned a number (expected true, false or nil)");
  expect_fallback(run(select + "function accept(ctx, r) return r.nope.field end", Call::accept),
                  "bad: accept(): attempt to index a nil value (field 'nope') (line 2)");
}

TEST(Sandbox, UndefinedGlobalCall) {
  expect_fallback(run("function select(ctx) return frobnicate(ctx) end"),
                  "bad: select(): attempt to call a nil value (global 'frobnicate') (line 1)");
}

TEST(Sandbox, MissingSelect) {
  // The base library's select() is not the script's.
  expect_fallback(run("function choose(ctx) end"), "bad: load: the script does not define select(ctx)");
}

TEST(Sandbox, AFailedPolicyIsNeverCalledAgain) {
  logged().clear();
  Context ctx = memory_bound();
  auto p = guard_lua_policy("bad", "n = 0\nfunction select(ctx) n = n + 1 if n == 1 then error('once') end end",
                            log_line);
  EXPECT_EQ(p->select(ctx), make_default_policy()->select(ctx));
  EXPECT_EQ(p->select(ctx), make_default_policy()->select(ctx));
  EXPECT_EQ(p->stop(ctx), std::nullopt);  // the default's answer
  EXPECT_EQ(logged().size(), 1u);
  EXPECT_EQ(p->failure(), "bad: select(): once (line 2)");
}

TEST(Sandbox, ADeadPolicyKeepsFailingWhenCalledDirectly) {
  auto p = load_lua_policy("bad", "function select(ctx) while true do end end");
  Context ctx = memory_bound();
  EXPECT_THROW(p->select(ctx), PolicyError);
  try {
    p->select(ctx);
    FAIL() << "a dead policy answered";
  } catch (const PolicyError& e) {
    EXPECT_STREQ(e.what(), "bad: select(): instruction limit exceeded");
  }
}

TEST(Sandbox, MissingFileFallsBack) {
  logged().clear();
  auto p = guard_lua_policy_file("/nonexistent/mine.lua", log_line);
  EXPECT_TRUE(p->fell_back());
  EXPECT_EQ(p->name(), "mine");
  EXPECT_EQ(p->failure().rfind("mine: load: ", 0), 0u) << p->failure();
  Context ctx = memory_bound();
  EXPECT_EQ(p->select(ctx), make_default_policy()->select(ctx));
}

}  // namespace
}  // namespace kernelblaster::policy
