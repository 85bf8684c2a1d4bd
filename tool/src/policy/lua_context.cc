#include "policy/lua_context.h"

#include <lua.hpp>

namespace kernelblaster::policy {
namespace {

void set_string(lua_State* L, const char* key, const std::string& value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, key);
}

void set_number(lua_State* L, const char* key, double value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, key);
}

void set_integer(lua_State* L, const char* key, std::int64_t value) {
  lua_pushinteger(L, static_cast<lua_Integer>(value));
  lua_setfield(L, -2, key);
}

void push_string_map(lua_State* L, const std::map<std::string, std::string>& values) {
  lua_createtable(L, 0, static_cast<int>(values.size()));
  for (const auto& [key, value] : values) {
    lua_pushlstring(L, key.data(), key.size());
    lua_pushlstring(L, value.data(), value.size());
    lua_rawset(L, -3);
  }
}

void push_action(lua_State* L, const Action& action) {
  lua_createtable(L, 0, 4);
  set_string(L, "id", action.id);
  set_string(L, "technique", action.technique);
  push_string_map(L, action.settings);
  lua_setfield(L, -2, "settings");
  lua_createtable(L, 0, 7);
  set_integer(L, "tries", action.kb.tries);
  set_integer(L, "successes", action.kb.successes);
  set_integer(L, "failed", action.kb.failed);
  set_number(L, "mean_speedup", action.kb.mean_speedup);
  set_number(L, "predicted_speedup", action.kb.predicted_speedup);
  set_number(L, "confidence", action.kb.confidence);
  set_integer(L, "helps_state", action.kb.helps_state);
  lua_setfield(L, -2, "kb");
}

// Everything an action's table holds, as one string: the key of its table
// in the cache, so a table is reused only for an action that is the same in
// every field (one policy may serve contexts of several kernels).
std::string action_key(const Action& a) {
  std::string key = a.id;
  key += '\0' + a.technique;
  for (const auto& [name, value] : a.settings) key += '\0' + name + '=' + value;
  const double numbers[] = {static_cast<double>(a.kb.tries), static_cast<double>(a.kb.successes),
                            static_cast<double>(a.kb.failed), a.kb.mean_speedup, a.kb.predicted_speedup,
                            a.kb.confidence, static_cast<double>(a.kb.helps_state)};
  key.append(reinterpret_cast<const char*>(numbers), sizeof numbers);
  return key;
}

// Pushes the action's table, made once and kept in the registry: a call
// then costs one array slot per untried action, not a tree of tables per
// action (on a space of 18,000 configurations, a few milliseconds instead
// of a policy that runs out of memory). Policies read action tables; one
// that writes into them sees its writes in later calls.
void push_cached_action(lua_State* L, int cache, const Action& action) {
  const std::string key = action_key(action);
  lua_pushlstring(L, key.data(), key.size());
  if (lua_rawget(L, cache) == LUA_TTABLE) return;
  lua_pop(L, 1);
  push_action(L, action);
  lua_pushlstring(L, key.data(), key.size());
  lua_pushvalue(L, -2);
  lua_rawset(L, cache);
}

constexpr const char* kActionCacheKey = "kernelblaster.actions";

}  // namespace

void push_history_entry(lua_State* L, const HistoryEntry& entry) {
  lua_createtable(L, 0, 8);
  set_string(L, "action_id", entry.action_id);
  set_string(L, "status", outcome_name(entry.end, entry.status));  // Lua's edge: a name
  set_number(L, "speedup", entry.speedup);
  set_number(L, "slowed_kernel_speedup", entry.slowed_kernel_speedup);
  set_number(L, "median_us", entry.median_us);
  lua_pushboolean(L, entry.accepted);
  lua_setfield(L, -2, "accepted");
  set_string(L, "technique", entry.technique);
  push_string_map(L, entry.settings);
  lua_setfield(L, -2, "settings");
}

void push_context(lua_State* L, const Context& ctx) {
  luaL_checkstack(L, 8, "policy context");
  lua_createtable(L, 0, 14);
  set_string(L, "kernel", ctx.kernel);
  set_string(L, "state", ctx.state);
  set_string(L, "arch", ctx.arch);
  set_string(L, "gpu", ctx.gpu);
  lua_createtable(L, 0, static_cast<int>(ctx.metrics.size()));
  for (const auto& [name, value] : ctx.metrics) {
    lua_pushlstring(L, name.data(), name.size());
    lua_pushnumber(L, value);
    lua_rawset(L, -3);
  }
  lua_setfield(L, -2, "metrics");
  if (lua_getfield(L, LUA_REGISTRYINDEX, kActionCacheKey) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, kActionCacheKey);
  }
  const int cache = lua_gettop(L);
  lua_createtable(L, static_cast<int>(ctx.actions.size()), 0);
  for (std::size_t i = 0; i < ctx.actions.size(); ++i) {
    push_cached_action(L, cache, ctx.actions[i]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -3, "actions");
  lua_pop(L, 1);  // the cache
  lua_createtable(L, static_cast<int>(ctx.history.size()), 0);
  for (std::size_t i = 0; i < ctx.history.size(); ++i) {
    push_history_entry(L, ctx.history[i]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -2, "history");
  push_string_map(L, ctx.original);
  lua_setfield(L, -2, "original");
  set_integer(L, "evaluations_left", ctx.evaluations_left);
  set_number(L, "seconds_left", ctx.seconds_left);
  set_number(L, "best_speedup", ctx.best_speedup);
  set_integer(L, "seed", static_cast<std::int64_t>(ctx.seed));
}

}  // namespace kernelblaster::policy
