#include "policy/lua_guards.h"

#include <lua.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>

#include "policy/lua_sandbox.h"

namespace kernelblaster::policy {
namespace {

// Above this many worst-case backtracking steps a pattern call is refused:
// it could run for seconds inside C, where the hook cannot stop it.
constexpr double kPatternStepCap = 2e7;
constexpr int kPrintLinesPerCall = 100;

// Every function exposed to Lua goes through this: a C++ exception must not
// cross Lua's C frames, so it is caught here and re-raised as a Lua error
// once the exception object is gone. The guards below use only the C API,
// so in practice nothing is ever caught; this is the contract's backstop.
template <lua_CFunction F>
int protect(lua_State* L) {
  char message[256];
  message[0] = '\0';
  try {
    return F(L);
  } catch (const std::exception& e) {
    std::snprintf(message, sizeof message, "internal error: %s", e.what());
  } catch (...) {
    std::snprintf(message, sizeof message, "internal error");  // no std::exception: nothing more to say
  }
  return luaL_error(L, "%s", message);
}

// Calls the original function (upvalue 1) with this call's arguments, then
// checks the deadline.
int delegate(lua_State* L) {
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  charge_steps(L, 0);
  return lua_gettop(L);
}

int blocked_function(lua_State* L) {
  return luaL_error(L, "%s is not available in the policy sandbox", lua_tostring(L, lua_upvalueindex(1)));
}

// __index and __newindex of a blocked library table: (table, key [, value]).
int blocked_member(lua_State* L) {
  const char* lib = lua_tostring(L, lua_upvalueindex(1));
  const char* key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";
  return luaL_error(L, "%s.%s is not available in the policy sandbox", lib, key);
}

int guarded_rep(lua_State* L) {
  std::size_t len = 0, sep_len = 0;
  luaL_checklstring(L, 1, &len);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &sep_len);
  if (n > 0) {
    double bytes = static_cast<double>(len) * static_cast<double>(n) +
                   static_cast<double>(sep_len) * static_cast<double>(n - 1);
    if (bytes > static_cast<double>(memory_left(L))) return raise_abort(L, Abort::memory);
  }
  return delegate(L);
}

// find, match, gmatch, gsub: (subject, pattern, ...). Upvalue 2 is true for
// find, whose 4th argument `plain` turns patterns off.
int guarded_pattern(lua_State* L) {
  std::size_t subject_size = 0, pattern_size = 0;
  luaL_checklstring(L, 1, &subject_size);
  const char* pattern = luaL_checklstring(L, 2, &pattern_size);
  bool plain = lua_toboolean(L, lua_upvalueindex(2)) && lua_toboolean(L, 4);
  if (!plain) {
    double steps = pattern_worst_case_steps(pattern, pattern_size, subject_size);
    if (steps > kPatternStepCap) {
      char message[200];  // lua_pushfstring has no %g
      std::snprintf(message, sizeof message,
                    "pattern too complex for the policy sandbox (worst case %.3g steps on a %zu-byte subject); "
                    "use fewer repetitions or string.find(s, p, 1, true)",
                    steps, subject_size);
      return luaL_error(L, "%s", message);
    }
  }
  charge_steps(L, static_cast<double>(subject_size));
  return delegate(L);
}

double clamp_count(lua_Integer first, lua_Integer last) {
  return last >= first ? static_cast<double>(last) - static_cast<double>(first) + 1 : 0;
}

int guarded_move(lua_State* L) {  // table.move(a1, f, e, t [, a2])
  charge_steps(L, clamp_count(luaL_checkinteger(L, 2), luaL_checkinteger(L, 3)));
  return delegate(L);
}

int guarded_insert(lua_State* L) {  // table.insert(t, [pos,] value): shifting is O(#t - pos)
  if (lua_gettop(L) == 3) charge_steps(L, clamp_count(luaL_checkinteger(L, 2), luaL_len(L, 1)));
  return delegate(L);
}

int guarded_remove(lua_State* L) {  // table.remove(t [, pos])
  lua_Integer size = luaL_len(L, 1);
  charge_steps(L, clamp_count(luaL_optinteger(L, 2, size), size));
  return delegate(L);
}

int guarded_concat(lua_State* L) {  // table.concat(t [, sep [, i [, j]]])
  lua_Integer first = luaL_optinteger(L, 3, 1);
  lua_Integer last = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
  charge_steps(L, clamp_count(first, last));
  return delegate(L);
}

int guarded_sort(lua_State* L) {
  charge_steps(L, clamp_count(1, luaL_len(L, 1)));
  return delegate(L);
}

int guarded_collectgarbage(lua_State* L) {
  const char* option = luaL_optstring(L, 1, "collect");
  for (const char* allowed : {"collect", "count", "step", "isrunning"}) {
    if (std::strcmp(option, allowed) == 0) return delegate(L);
  }
  return luaL_error(L, "collectgarbage('%s') is not available in the policy sandbox", option);
}

int guarded_randomseed(lua_State* L) {
  if (lua_gettop(L) == 0) {
    return luaL_error(L, "math.randomseed() needs a seed in the policy sandbox (the tool seeds it from ctx.seed)");
  }
  return delegate(L);
}

// load(chunk [, chunkname [, mode [, env]]]): text only, whatever `mode` says.
int text_only_load(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING) return luaL_error(L, "load() takes only source text in the policy sandbox");
  std::size_t size = 0;
  const char* text = lua_tolstring(L, 1, &size);
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  bool has_env = !lua_isnone(L, 4);
  int status = luaL_loadbufferx(L, text, size, chunkname, "t");
  if (status != LUA_OK) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  if (has_env) {
    lua_pushvalue(L, 4);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

int sandbox_print(lua_State* L) {
  SandboxBudget& budget = budget_of(L);
  int n = lua_gettop(L);
  luaL_Buffer line;
  luaL_buffinit(L, &line);
  luaL_addchar(&line, '[');
  luaL_addstring(&line, budget.name);
  luaL_addstring(&line, "] ");
  for (int i = 1; i <= n; ++i) {
    if (i > 1) luaL_addchar(&line, '\t');
    luaL_tolstring(L, i, nullptr);
    luaL_addvalue(&line);
  }
  luaL_addchar(&line, '\n');
  luaL_pushresult(&line);
  if (budget.printed_lines++ < kPrintLinesPerCall) {
    std::size_t size = 0;
    const char* text = lua_tolstring(L, -1, &size);
    std::fwrite(text, 1, size, stderr);
  }
  return 0;
}

void replace(lua_State* L, int table, const char* name, lua_CFunction guard, int extra_upvalues = 0) {
  table = lua_absindex(L, table);
  lua_getfield(L, table, name);  // the original: upvalue 1
  if (extra_upvalues > 0) lua_rotate(L, -1 - extra_upvalues, 1);
  lua_pushcclosure(L, guard, 1 + extra_upvalues);
  lua_setfield(L, table, name);
}

void block_function(lua_State* L, int table, const char* name, const char* shown_as) {
  table = lua_absindex(L, table);
  lua_pushstring(L, shown_as);
  lua_pushcclosure(L, protect<blocked_function>, 1);
  lua_setfield(L, table, name);
}

void block_library(lua_State* L, const char* name) {
  lua_newtable(L);
  lua_newtable(L);  // its metatable
  lua_pushstring(L, name);
  lua_pushcclosure(L, protect<blocked_member>, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_setglobal(L, name);
}

}  // namespace

double pattern_worst_case_steps(const char* p, unsigned long size, unsigned long subject_size) {
  // Each repetition (*, +, -) may try every position of the subject and
  // backtrack into the next, each %b scans ahead, and every start position
  // is tried: (n+1)^(repetitions+1), times 2 per optional item.
  int repetitions = 0, optionals = 0;
  unsigned long i = 0;
  auto skip_set = [&](unsigned long j) {  // j at '['; returns one past ']'
    ++j;
    if (j < size && p[j] == '^') ++j;
    if (j < size) ++j;  // a ']' right after '[' or '[^' is literal
    while (j < size && p[j] != ']') j += p[j] == '%' ? 2 : 1;
    return j + 1;
  };
  while (i < size) {
    char c = p[i];
    unsigned long end = i + 1;
    if (c == '(' || c == ')' || (c == '^' && i == 0)) {
      ++i;
      continue;
    }
    if (c == '%' && i + 1 < size) {
      char d = p[i + 1];
      if (d == 'b') {
        ++repetitions;
        i += 4;
        continue;
      }
      if (d == 'f') {
        i = i + 2 < size && p[i + 2] == '[' ? skip_set(i + 2) : i + 2;
        continue;
      }
      end = i + 2;
    } else if (c == '[') {
      end = skip_set(i);
    }
    if (end < size) {
      char q = p[end];
      if (q == '*' || q == '+' || q == '-') {
        ++repetitions;
        ++end;
      } else if (q == '?') {
        ++optionals;
        ++end;
      }
    }
    i = end;
  }
  double n = static_cast<double>(subject_size) + 1;
  return std::pow(n, repetitions + 1) * std::pow(2.0, optionals > 1000 ? 1000 : optionals);
}

int open_sandbox_libraries(lua_State* L) {
  const luaL_Reg libraries[] = {{LUA_GNAME, luaopen_base},
                                {LUA_TABLIBNAME, luaopen_table},
                                {LUA_STRLIBNAME, luaopen_string},
                                {LUA_MATHLIBNAME, luaopen_math},
                                {LUA_UTF8LIBNAME, luaopen_utf8}};
  for (const luaL_Reg& lib : libraries) {
    luaL_requiref(L, lib.name, lib.func, 1);
    lua_pop(L, 1);
  }

  lua_pushglobaltable(L);
  int globals = lua_gettop(L);
  block_function(L, globals, "dofile", "dofile");
  block_function(L, globals, "loadfile", "loadfile");
  block_function(L, globals, "require", "require");
  lua_pushcfunction(L, protect<text_only_load>);
  lua_setfield(L, globals, "load");
  lua_pushcfunction(L, protect<sandbox_print>);
  lua_setfield(L, globals, "print");
  replace(L, globals, "collectgarbage", protect<guarded_collectgarbage>);
  for (const char* lib : {"io", "os", "package", "debug", "coroutine"}) block_library(L, lib);

  lua_getglobal(L, LUA_STRLIBNAME);
  block_function(L, -1, "dump", "string.dump");
  replace(L, -1, "rep", protect<guarded_rep>);
  for (const char* name : {"find", "match", "gmatch", "gsub"}) {
    lua_pushboolean(L, std::strcmp(name, "find") == 0);
    replace(L, -2, name, protect<guarded_pattern>, 1);
  }
  lua_pop(L, 1);

  lua_getglobal(L, LUA_TABLIBNAME);
  replace(L, -1, "move", protect<guarded_move>);
  replace(L, -1, "insert", protect<guarded_insert>);
  replace(L, -1, "remove", protect<guarded_remove>);
  replace(L, -1, "concat", protect<guarded_concat>);
  replace(L, -1, "sort", protect<guarded_sort>);
  lua_pop(L, 1);

  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_getfield(L, -1, "randomseed");
  lua_setfield(L, LUA_REGISTRYINDEX, kRandomSeedKey);
  replace(L, -1, "randomseed", protect<guarded_randomseed>);
  lua_pop(L, 1);

  lua_pop(L, 1);  // globals
  return 0;
}

}  // namespace kernelblaster::policy
