// The sandboxed Lua state a policy runs in: a byte-capped allocator, an
// instruction-count hook that also watches a wall-clock deadline, and only the
// base, table, string, math and utf8 libraries (with the guards of
// lua_guards.h in place of the functions that could escape the limits).
//
// Lua is compiled as C here: its errors longjmp. Every function in this area
// that runs under Lua (hook, allocator, guards, the protected entry points)
// touches only plain data, so no C++ destructor is skipped by a Lua error.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "policy/lua_policy.h"

struct lua_State;

namespace kernelblaster::policy {

// Why a call was cut short. The first limit hit wins; once set, every
// further Lua instruction of the call raises, so a script cannot swallow it
// with pcall and carry on.
enum class Abort : int { none, instructions, deadline, memory, closing };

// Plain data shared by the allocator, the hook and the guards (reached via
// lua_getallocf). Trivially destructible on purpose.
struct SandboxBudget {
  std::size_t memory_used = 0;
  std::size_t memory_limit = 0;
  std::int64_t instructions_used = 0;
  std::int64_t instruction_limit = 0;
  std::chrono::steady_clock::time_point deadline{};
  Abort abort = Abort::none;
  int printed_lines = 0;
  const char* name = "";  // the policy's name, owned by the Sandbox
};

SandboxBudget& budget_of(lua_State* L);
// Records `why` (unless a limit was already hit) and raises a Lua error.
int raise_abort(lua_State* L, Abort why);
// Charges `steps` units of work done in C to the instruction budget and
// checks the deadline; raises when either is exhausted.
void charge_steps(lua_State* L, double steps);
// Bytes the script may still allocate.
std::size_t memory_left(lua_State* L);

class Sandbox {
 public:
  // Creates the state and opens the sandboxed libraries; throws PolicyError.
  Sandbox(const std::string& name, const SandboxLimits& limits);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  lua_State* state() const { return m_L; }
  // Starts a fresh per-call budget (instructions, deadline) for a context of
  // `actions` actions; memory is a cap on the whole state, not per call,
  // set from the same count.
  void begin_call(std::size_t actions = 0);
  Abort abort() const { return m_budget.abort; }
  // The one-line reason for `why`, e.g. "deadline exceeded (1.0 s)".
  std::string abort_reason(Abort why) const;

 private:
  std::string m_name;
  SandboxLimits m_limits;
  SandboxBudget m_budget;
  double m_seconds = 0;       // this call's deadline, from now
  std::size_t m_actions = 0;  // in this call's context
  std::string per_action(const std::string& allowance) const;
  lua_State* m_L = nullptr;
};

}  // namespace kernelblaster::policy
