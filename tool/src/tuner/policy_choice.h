// The policy a run uses: the user's Lua script guarded by the built-in
// default, or the default alone.
#pragma once

#include <memory>
#include <string>

#include "policy/policy.h"

namespace kernelblaster::tuner {

struct PolicyChoice {
  std::unique_ptr<policy::Policy> policy;
  policy::GuardedPolicy* guarded = nullptr;  // set when a script is in charge
  std::string name;
  bool failed_to_load = false;               // the script did not load: the default runs
  std::string failure;
  bool fell_back() const { return failed_to_load || (guarded && guarded->fell_back()); }
};

// `path` empty or "default": the built-in policy. A script that does not
// load is reported through `log` (one line) and replaced by the default: a
// policy never breaks a run.
PolicyChoice choose_policy(const std::string& path, void (*log)(const std::string&));

}  // namespace kernelblaster::tuner
