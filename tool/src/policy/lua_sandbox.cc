#include "policy/lua_sandbox.h"

#include <lua.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "policy/lua_guards.h"

namespace kernelblaster::policy {
namespace {

using Clock = std::chrono::steady_clock;

// The hook runs every kHookPeriod VM instructions: often enough that the
// deadline is noticed within microseconds, rarely enough to cost nothing.
constexpr int kHookPeriod = 1000;

const char* short_message(Abort why) {
  switch (why) {
    case Abort::instructions: return "instruction limit exceeded";
    case Abort::deadline: return "deadline exceeded";
    case Abort::memory: return "memory limit exceeded";
    case Abort::closing: return "the policy is being unloaded";
    case Abort::none: break;
  }
  return "aborted";
}

// lua_Alloc with a byte cap. Refusing an allocation makes Lua raise a memory
// error; the cap being hit also ends the call (Abort::memory), even if the
// script catches that error.
void* capped_alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* b = static_cast<SandboxBudget*>(ud);
  std::size_t old = ptr ? osize : 0;  // without ptr, osize encodes a type
  if (nsize == 0) {
    std::free(ptr);
    b->memory_used -= old;
    return nullptr;
  }
  if (nsize > old) {
    std::size_t left = b->memory_used < b->memory_limit ? b->memory_limit - b->memory_used : 0;
    if (nsize - old > left) {
      if (b->abort == Abort::none) b->abort = Abort::memory;
      return nullptr;
    }
  }
  void* p = std::realloc(ptr, nsize);
  if (p) b->memory_used = b->memory_used - old + nsize;
  return p;
}

void count_hook(lua_State* L, lua_Debug*) {
  SandboxBudget& b = budget_of(L);
  if (b.abort == Abort::none) {
    b.instructions_used += kHookPeriod;
    if (b.instructions_used > b.instruction_limit) {
      b.abort = Abort::instructions;
    } else if (Clock::now() > b.deadline) {
      b.abort = Abort::deadline;
    }
  }
  if (b.abort != Abort::none) raise_abort(L, b.abort);
}

int panic(lua_State* L) {
  // Only reachable if a Lua error escapes protected mode, which this area
  // never allows; Lua aborts the process after this returns.
  const char* msg = lua_tostring(L, -1);
  std::fprintf(stderr, "kernelblaster: unprotected Lua error: %s\n", msg ? msg : "?");
  return 0;
}

std::string format_seconds(double s) {
  char buf[32];
  double tenths = s * 10;
  std::snprintf(buf, sizeof buf, std::fabs(tenths - std::round(tenths)) < 1e-9 ? "%.1f" : "%g", s);
  return buf;
}

std::string format_bytes(std::size_t n) {
  char buf[48];
  if (n >= (1u << 20) && n % (1u << 20) == 0) {
    std::snprintf(buf, sizeof buf, "%zu MiB", n >> 20);
  } else if (n >= 1024 && n % 1024 == 0) {
    std::snprintf(buf, sizeof buf, "%zu KiB", n >> 10);
  } else {
    std::snprintf(buf, sizeof buf, "%zu bytes", n);
  }
  return buf;
}

}  // namespace

SandboxBudget& budget_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<SandboxBudget*>(ud);
}

int raise_abort(lua_State* L, Abort why) {
  SandboxBudget& b = budget_of(L);
  if (b.abort == Abort::none) b.abort = why;
  // From now on every instruction of this call raises again.
  lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  return luaL_error(L, "%s", short_message(b.abort));
}

void charge_steps(lua_State* L, double steps) {
  SandboxBudget& b = budget_of(L);
  if (b.abort != Abort::none) raise_abort(L, b.abort);
  double room = static_cast<double>(b.instruction_limit - b.instructions_used);
  if (steps > room) raise_abort(L, Abort::instructions);
  b.instructions_used += static_cast<std::int64_t>(steps);
  if (Clock::now() > b.deadline) raise_abort(L, Abort::deadline);
}

std::size_t memory_left(lua_State* L) {
  const SandboxBudget& b = budget_of(L);
  return b.memory_used < b.memory_limit ? b.memory_limit - b.memory_used : 0;
}

Sandbox::Sandbox(const std::string& name, const SandboxLimits& limits) : m_name(name), m_limits(limits) {
  m_budget.memory_limit = limits.memory_bytes;
  m_budget.name = m_name.c_str();
  m_L = lua_newstate(capped_alloc, &m_budget);
  if (!m_L) throw PolicyError(m_name + ": load: cannot create a Lua state within " + format_bytes(limits.memory_bytes));
  lua_atpanic(m_L, panic);
  begin_call();
  lua_pushcfunction(m_L, open_sandbox_libraries);
  int status = lua_pcall(m_L, 0, 0, 0);
  if (status != LUA_OK) {
    std::string why = m_budget.abort != Abort::none ? abort_reason(m_budget.abort)
                      : lua_type(m_L, -1) == LUA_TSTRING ? lua_tostring(m_L, -1)
                                                         : "cannot open the sandbox libraries";
    lua_close(m_L);
    m_L = nullptr;
    throw PolicyError(m_name + ": load: " + why);
  }
}

Sandbox::~Sandbox() {
  if (!m_L) return;
  // Finalizers (__gc) a script set run during lua_close: make them fail at
  // their first instruction.
  m_budget.abort = Abort::closing;
  lua_sethook(m_L, count_hook, LUA_MASKCOUNT, 1);
  lua_close(m_L);
}

void Sandbox::begin_call(std::size_t actions) {
  m_actions = actions;
  m_budget.instructions_used = 0;
  m_budget.instruction_limit = m_limits.instructions + m_limits.instructions_per_action * static_cast<std::int64_t>(actions);
  m_seconds = m_limits.seconds + m_limits.seconds_per_action * static_cast<double>(actions);
  m_budget.memory_limit = m_limits.memory_bytes + m_limits.memory_bytes_per_action * actions;
  m_budget.deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_seconds));
  m_budget.abort = Abort::none;
  m_budget.printed_lines = 0;
  lua_sethook(m_L, count_hook, LUA_MASKCOUNT, kHookPeriod);
}

// " + 4 KiB for each of 18000 actions", or nothing for a call without actions.
std::string Sandbox::per_action(const std::string& allowance) const {
  return m_actions ? " + " + allowance + " for each of " + std::to_string(m_actions) + " actions" : "";
}

std::string Sandbox::abort_reason(Abort why) const {
  switch (why) {
    case Abort::instructions: return "instruction limit exceeded";
    case Abort::deadline:
      return "deadline exceeded (" + format_seconds(m_limits.seconds) + " s" +
             per_action(format_seconds(m_limits.seconds_per_action * 1e6) + " us") + ")";
    case Abort::memory:
      return "memory limit exceeded (" + format_bytes(m_limits.memory_bytes) +
             per_action(format_bytes(m_limits.memory_bytes_per_action)) + ")";
    default: return short_message(why);
  }
}

}  // namespace kernelblaster::policy
