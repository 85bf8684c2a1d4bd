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
  lua_createtable(L, 0, 6);
  set_integer(L, "tries", action.kb.tries);
  set_integer(L, "successes", action.kb.successes);
  set_integer(L, "failed", action.kb.failed);
  set_number(L, "mean_speedup", action.kb.mean_speedup);
  set_number(L, "predicted_speedup", action.kb.predicted_speedup);
  set_number(L, "confidence", action.kb.confidence);
  lua_setfield(L, -2, "kb");
}

}  // namespace

void push_history_entry(lua_State* L, const HistoryEntry& entry) {
  lua_createtable(L, 0, 7);
  set_string(L, "action_id", entry.action_id);
  set_string(L, "status", outcome_name(entry.end, entry.status));  // Lua's edge: a name
  set_number(L, "speedup", entry.speedup);
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
  lua_createtable(L, static_cast<int>(ctx.actions.size()), 0);
  for (std::size_t i = 0; i < ctx.actions.size(); ++i) {
    push_action(L, ctx.actions[i]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -2, "actions");
  lua_createtable(L, static_cast<int>(ctx.history.size()), 0);
  for (std::size_t i = 0; i < ctx.history.size(); ++i) {
    push_history_entry(L, ctx.history[i]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -2, "history");
  set_integer(L, "evaluations_left", ctx.evaluations_left);
  set_number(L, "seconds_left", ctx.seconds_left);
  set_number(L, "best_speedup", ctx.best_speedup);
  set_integer(L, "seed", static_cast<std::int64_t>(ctx.seed));
}

}  // namespace kernelblaster::policy
