#include "policy/lua_policy.h"

#include <lua.hpp>

#include <cctype>
#include <exception>
#include <filesystem>

#include "common/file_util.h"
#include "policy/default_policy.h"
#include "policy/lua_context.h"
#include "policy/lua_guards.h"
#include "policy/lua_sandbox.h"

namespace kernelblaster::policy {
namespace {

// Requests handed to the protected entry points through a light userdata.
// Plain data only: Lua may longjmp out of the code that fills them.
struct LoadRequest {
  const char* text = nullptr;
  std::size_t size = 0;
  const char* chunkname = nullptr;
  int env_ref = LUA_NOREF;
  bool compiled = false;
  bool has_select = false;
};

struct CallRequest {
  const Context* ctx = nullptr;
  const HistoryEntry* result = nullptr;  // accept() only
  const char* function = nullptr;
  int env_ref = LUA_NOREF;
  bool defined = false;
};

// Runs the script's top level in its own globals table (whose misses fall
// through to the sandbox's globals, so the script's select() never hides
// the base library's), then looks for select().
int load_entry(lua_State* L) {
  auto* req = static_cast<LoadRequest*>(lua_touserdata(L, 1));
  lua_newtable(L);
  int env = lua_gettop(L);
  lua_createtable(L, 0, 1);
  lua_pushglobaltable(L);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, env);
  lua_pushvalue(L, env);
  req->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (luaL_loadbufferx(L, req->text, req->size, req->chunkname, "t") != LUA_OK) return lua_error(L);
  req->compiled = true;
  lua_pushvalue(L, env);
  lua_setupvalue(L, -2, 1);  // a main chunk's first upvalue is _ENV
  lua_call(L, 0, 0);
  lua_pushliteral(L, "select");
  lua_rawget(L, env);
  req->has_select = lua_type(L, -1) == LUA_TFUNCTION;
  return 0;
}

// Seeds math.random from (ctx.seed, #ctx.history), builds ctx and calls the
// script's function; returns its first result.
int call_entry(lua_State* L) {
  auto* req = static_cast<CallRequest*>(lua_touserdata(L, 1));
  lua_rawgeti(L, LUA_REGISTRYINDEX, req->env_ref);
  lua_pushstring(L, req->function);
  lua_rawget(L, -2);
  if (lua_isnil(L, -1)) return 0;
  if (lua_type(L, -1) != LUA_TFUNCTION) {
    return luaL_error(L, "%s is a %s, not a function", req->function, luaL_typename(L, -1));
  }
  req->defined = true;
  lua_getfield(L, LUA_REGISTRYINDEX, kRandomSeedKey);
  lua_pushinteger(L, static_cast<lua_Integer>(req->ctx->seed));
  lua_pushinteger(L, static_cast<lua_Integer>(req->ctx->history.size()));
  lua_call(L, 2, 0);
  push_context(L, *req->ctx);
  int nargs = 1;
  if (req->result) {
    push_history_entry(L, *req->result);
    nargs = 2;
  }
  lua_call(L, nargs, 1);
  return 1;
}

// Keeps the error one line; a non-string error object becomes a description.
int message_handler(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING) lua_pushfstring(L, "error object is a %s value", luaL_typename(L, 1));
  return 1;
}

// Runs `entry(request)` under lua_pcall with the message handler; the result
// or the error message is left at index 2.
int run_protected(lua_State* L, lua_CFunction entry, void* request) {
  lua_settop(L, 0);
  lua_pushcfunction(L, message_handler);
  lua_pushcfunction(L, entry);
  lua_pushlightuserdata(L, request);
  return lua_pcall(L, 1, 1, 1);
}

// "name:12: attempt to ..." -> "attempt to ... (line 12)", on one line.
std::string clean_message(const std::string& name, std::string msg) {
  std::string prefix = name + ":";
  if (msg.rfind(prefix, 0) == 0) {
    std::size_t digits = prefix.size(), end = digits;
    while (end < msg.size() && std::isdigit(static_cast<unsigned char>(msg[end]))) ++end;
    if (end > digits && msg.compare(end, 2, ": ") == 0) {
      msg = msg.substr(end + 2) + " (line " + msg.substr(digits, end - digits) + ")";
    }
  }
  for (char& c : msg) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (msg.size() > 300) msg = msg.substr(0, 297) + "...";
  return msg;
}

std::string error_text(lua_State* L) {
  std::size_t size = 0;
  const char* text = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &size) : nullptr;
  return text ? std::string(text, size) : std::string("unknown error");
}

class LuaPolicy final : public Policy {
 public:
  LuaPolicy(const std::string& name, const std::string& text, const SandboxLimits& limits)
      : m_name(name), m_sandbox(std::make_unique<Sandbox>(name, limits)) {
    if (!text.empty() && text[0] == LUA_SIGNATURE[0]) {
      throw PolicyError(m_name + ": load: bytecode is not accepted; a policy loads from source text only");
    }
    std::string chunkname = "=" + m_name;
    LoadRequest req;
    req.text = text.data();
    req.size = text.size();
    req.chunkname = chunkname.c_str();
    lua_State* L = m_sandbox->state();
    m_sandbox->begin_call();
    int status = run_protected(L, load_entry, &req);
    m_env_ref = req.env_ref;
    if (status != LUA_OK || m_sandbox->abort() != Abort::none) {
      std::string reason = failure_reason(status);
      if (!req.compiled && m_sandbox->abort() == Abort::none && reason.find("syntax error") == std::string::npos) {
        reason = "syntax error: " + reason;
      }
      throw PolicyError(m_name + ": load: " + reason);
    }
    if (!req.has_select) throw PolicyError(m_name + ": load: the script does not define select(ctx)");
  }

  std::string name() const override { return m_name; }

  std::vector<std::string> select(const Context& ctx) override {
    lua_State* L = m_sandbox->state();
    if (!call("select", ctx, nullptr)) die("select() is no longer defined");
    std::vector<std::string> ids;
    switch (lua_type(L, -1)) {
      case LUA_TNIL:
        if (!ctx.actions.empty()) die_returned("select", "nil (expected an action id or a list of ids)");
        break;
      case LUA_TSTRING:
        ids.push_back(string_at(L, -1));
        break;
      case LUA_TTABLE: {
        // Raw access only: no metamethod (no script code) runs outside the
        // sandbox's protected call.
        lua_Unsigned n = lua_rawlen(L, -1);
        for (lua_Unsigned i = 1; i <= n; ++i) {
          int type = lua_rawgeti(L, -1, static_cast<lua_Integer>(i));
          if (type != LUA_TSTRING) {
            die_returned("select", std::string("a list whose item ") + std::to_string(i) + " is a " +
                                       lua_typename(L, type) + ", not an action id");
          }
          ids.push_back(string_at(L, -1));
          lua_pop(L, 1);
          if (ids.size() > ctx.actions.size()) break;  // a duplicate or unknown id is certain; check_selection names it
        }
        break;
      }
      default:
        die_returned("select", std::string("a ") + luaL_typename(L, -1) + " (expected an action id or a list of ids)");
    }
    lua_settop(L, 0);
    try {
      check_selection(ctx, ids, m_name);
    } catch (const PolicyError& e) {
      m_dead = e.what();
      throw;
    }
    return ids;
  }

  std::optional<bool> accept(const Context& ctx, const HistoryEntry& result) override {
    return optional_boolean("accept", ctx, &result);
  }

  std::optional<bool> stop(const Context& ctx) override { return optional_boolean("stop", ctx, nullptr); }

 private:
  std::optional<bool> optional_boolean(const char* function, const Context& ctx, const HistoryEntry* result) {
    lua_State* L = m_sandbox->state();
    if (!call(function, ctx, result)) return std::nullopt;
    std::optional<bool> answer;
    if (lua_type(L, -1) == LUA_TBOOLEAN) {
      answer = lua_toboolean(L, -1) != 0;
    } else if (!lua_isnil(L, -1)) {
      die_returned(function, std::string("a ") + luaL_typename(L, -1) + " (expected true, false or nil)");
    }
    lua_settop(L, 0);
    return answer;
  }

  // Calls `function` in the sandbox; on success its result is on top of the
  // stack. Returns false when the script does not define it.
  bool call(const char* function, const Context& ctx, const HistoryEntry* result) {
    if (!m_dead.empty()) throw PolicyError(m_dead);
    CallRequest req;
    req.ctx = &ctx;
    req.result = result;
    req.function = function;
    req.env_ref = m_env_ref;
    m_sandbox->begin_call(ctx.actions.size());
    int status = run_protected(m_sandbox->state(), call_entry, &req);
    if (status != LUA_OK || m_sandbox->abort() != Abort::none) {
      die(std::string(function) + "(): " + failure_reason(status));
    }
    return req.defined;
  }

  std::string failure_reason(int status) {
    if (m_sandbox->abort() != Abort::none) return m_sandbox->abort_reason(m_sandbox->abort());
    if (status == LUA_ERRMEM) return m_sandbox->abort_reason(Abort::memory);
    if (status == LUA_ERRERR) return "error in the error handler";
    return clean_message(m_name, error_text(m_sandbox->state()));
  }

  static std::string string_at(lua_State* L, int index) {
    std::size_t size = 0;
    const char* text = lua_tolstring(L, index, &size);  // a string already: no conversion, no allocation
    return std::string(text, size);
  }

  [[noreturn]] void die_returned(const char* function, const std::string& what) {
    die_line(m_name + ": " + function + "() returned " + what);
  }
  [[noreturn]] void die(const std::string& reason) { die_line(m_name + ": " + reason); }
  [[noreturn]] void die_line(const std::string& line) {
    // The state may be mid-way through anything: it is never called again.
    m_dead = line;
    lua_settop(m_sandbox->state(), 0);
    throw PolicyError(line);
  }

  std::string m_name;
  std::unique_ptr<Sandbox> m_sandbox;
  int m_env_ref = LUA_NOREF;
  std::string m_dead;  // the failure that disabled this policy
};

}  // namespace

std::unique_ptr<Policy> load_lua_policy(const std::string& name, const std::string& text,
                                        const SandboxLimits& limits) {
  return std::make_unique<LuaPolicy>(name, text, limits);
}

std::string policy_name_for_path(const std::string& path) {
  std::filesystem::path p(path);
  return p.extension() == ".lua" ? p.stem().string() : p.filename().string();
}

std::unique_ptr<Policy> load_lua_policy_file(const std::string& path, const SandboxLimits& limits) {
  std::string name = policy_name_for_path(path), text;
  try {
    text = read_file(path);
  } catch (const std::exception& e) {
    throw PolicyError(name + ": load: " + e.what());
  }
  return load_lua_policy(name, text, limits);
}

std::unique_ptr<GuardedPolicy> guard_lua_policy(const std::string& name, const std::string& text,
                                                void (*log)(const std::string&), const SandboxLimits& limits) {
  std::unique_ptr<Policy> user;
  try {
    user = load_lua_policy(name, text, limits);
  } catch (const std::exception& e) {
    return std::make_unique<GuardedPolicy>(name, e.what(), make_default_policy(), log);
  }
  return std::make_unique<GuardedPolicy>(std::move(user), make_default_policy(), log);
}

std::unique_ptr<GuardedPolicy> guard_lua_policy_file(const std::string& path, void (*log)(const std::string&),
                                                     const SandboxLimits& limits) {
  std::unique_ptr<Policy> user;
  try {
    user = load_lua_policy_file(path, limits);
  } catch (const std::exception& e) {
    return std::make_unique<GuardedPolicy>(policy_name_for_path(path), e.what(), make_default_policy(), log);
  }
  return std::make_unique<GuardedPolicy>(std::move(user), make_default_policy(), log);
}

}  // namespace kernelblaster::policy
