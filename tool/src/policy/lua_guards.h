// What a policy script can reach: the allow-listed libraries, with guards in
// place of the functions that could escape the sandbox's limits.
//
//  - io, os, package, debug, coroutine: tables whose every field raises
//    "io.open is not available in the policy sandbox"; dofile, loadfile,
//    require and string.dump raise the same way.
//  - load: source text only (mode "t"); a binary chunk is refused.
//  - C functions whose work the instruction hook cannot see (they run
//    without executing VM instructions) are checked before they run:
//    string.rep against the memory left, table.move/insert/remove/concat/sort
//    charge their element count to the instruction budget, and pattern
//    functions (find, match, gmatch, gsub) refuse patterns whose worst-case
//    backtracking on the given subject is too large. All of them check the
//    deadline after they return.
//  - collectgarbage: only "collect", "count", "step", "isrunning".
//  - math.randomseed needs an explicit seed (the tool seeds the generator
//    from ctx.seed before every call).
//  - print writes to stderr, prefixed with the policy's name, at most 100
//    lines per call.
#pragma once

struct lua_State;

namespace kernelblaster::policy {

// A lua_CFunction, to be run under lua_pcall on a fresh state: opens the
// sandboxed libraries into it and installs the guards.
int open_sandbox_libraries(lua_State* L);

// Registry key of the original math.randomseed, which the tool calls before
// every policy call.
inline constexpr const char* kRandomSeedKey = "kernelblaster.randomseed";

// Worst-case backtracking steps of Lua pattern `pattern` on a subject of
// `subject_size` bytes (a bound, not an estimate of typical cost).
double pattern_worst_case_steps(const char* pattern, unsigned long pattern_size, unsigned long subject_size);

}  // namespace kernelblaster::policy
