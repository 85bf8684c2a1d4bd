// policy::Context as the plain Lua table a script sees (policies/README.md
// lists its fields). Called only in protected mode: these raise Lua errors
// (memory) and keep no C++ temporaries alive while they do.
#pragma once

#include "policy/policy.h"

struct lua_State;

namespace kernelblaster::policy {

void push_context(lua_State* L, const Context& ctx);
void push_history_entry(lua_State* L, const HistoryEntry& entry);

}  // namespace kernelblaster::policy
