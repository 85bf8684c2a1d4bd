#include "tuner/policy_choice.h"

#include "policy/default_policy.h"
#include "policy/lua_policy.h"

namespace kernelblaster::tuner {

PolicyChoice choose_policy(const std::string& path, void (*log)(const std::string&)) {
  PolicyChoice c;
  if (path.empty() || path == "default") {
    c.policy = policy::make_default_policy();
    c.name = c.policy->name();
    return c;
  }
  try {
    auto guarded = std::make_unique<policy::GuardedPolicy>(policy::load_lua_policy_file(path),
                                                           policy::make_default_policy(), log);
    c.guarded = guarded.get();
    c.name = guarded->name();
    c.policy = std::move(guarded);
  } catch (const std::exception& e) {
    c.failed_to_load = true;
    c.failure = e.what();
    if (log) log("policy " + path + " not used, the default runs instead: " + e.what());
    c.policy = policy::make_default_policy();
    c.name = c.policy->name();
  }
  return c;
}

}  // namespace kernelblaster::tuner
