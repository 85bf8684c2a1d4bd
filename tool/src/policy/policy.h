// Selection policies: which candidate actions to try next, whether a result
// becomes the new base, and when to stop. A policy is a Lua 5.4 script run in
// a sandbox (lua_policy.h); the built-in default (default_policy.h) is used
// when no script is given or when a script fails.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/status.h"

namespace kernelblaster::policy {

// What the KB says about an action (for the kernel's state and this GPU's
// architecture), combined over its technique and settings.
struct KbEstimate {
  std::int64_t tries = 0;
  std::int64_t successes = 0;
  double mean_speedup = 1.0;
  double predicted_speedup = 1.0;
  double confidence = 0;
  std::int64_t failed = 0;  // tries that ended with no verified measurement (did not build, wrong, a hack)
  // Settings of the action the KB has no measurement of whose technique it
  // lists as helping the kernel's state (Technique::helps_states): the
  // paper's state-to-technique memory, what a cold start goes on.
  int helps_state = 0;
};

// One thing the search could try next: a technique, and for the tuner the
// full configuration (tunable values and flags) it stands for.
struct Action {
  std::string id;                              // unique within a context, e.g. "BLOCK_SIZE=128,ITEMS=4"
  std::string technique;                       // KB technique id
  std::map<std::string, std::string> settings; // tunable name -> value; flags as "flags" -> "..."
  KbEstimate kb;
};

// A measured action of this run.
struct HistoryEntry {
  std::string action_id;
  AttemptEnd end = AttemptEnd::verified;  // how the try ended
  Status status = Status::ok;             // the judge's verdict, for a judged try
  double speedup = 0;     // over the original; 0 unless verified
  double median_us = 0;
  bool accepted = false;  // became the base
  // The measured action's technique and settings (an action leaves
  // ctx.actions once tried), so a policy can learn which settings worked.
  std::string technique;
  std::map<std::string, std::string> settings;
  // 0 unless the try made one of the call's kernels slower (a result never
  // kept, judge/kernel_speeds.h): that kernel's speedup, below 1. What such a
  // try is worth is the lower of the two (worth()).
  double slowed_kernel_speedup = 0;
  bool verified() const { return end == AttemptEnd::verified && status == Status::ok; }
  // The speedup it could be kept at: a try that slows a kernel is worth no
  // more than that kernel's speedup.
  double worth() const {
    return slowed_kernel_speedup > 0 && slowed_kernel_speedup < speedup ? slowed_kernel_speedup : speedup;
  }
};

// What a context says about the kernel, before its actions.
struct KernelFacts {
  std::string kernel;                         // source name
  std::string state;                          // performance state id
  std::string arch;                           // "sm_90"
  std::string gpu;                            // "NVIDIA H200"
  std::map<std::string, double> metrics;
};

struct Context : KernelFacts {
  std::vector<Action> actions;                // not yet tried
  std::vector<HistoryEntry> history;          // tried, oldest first
  // The original's settings (every tunable at the value the author wrote,
  // no flags), measured by definition at speedup 1; empty where a run has
  // no original (the optimize loop's techniques).
  std::map<std::string, std::string> original;
  int evaluations_left = 0;
  double seconds_left = 0;
  double best_speedup = 1.0;
  std::uint64_t seed = 0;                     // seeds math.random in the sandbox
};

// A policy call that failed: the one line to log.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // Ids of actions to try next, best first; each id must be one of
  // ctx.actions. Throws PolicyError on any failure or invalid return.
  virtual std::vector<std::string> select(const Context& ctx) = 0;
  // Whether `result` becomes the base; nullopt: the policy has no opinion.
  virtual std::optional<bool> accept(const Context& ctx, const HistoryEntry& result) = 0;
  // Whether to end the search now; nullopt: no opinion.
  virtual std::optional<bool> stop(const Context& ctx) = 0;
};

// Wraps a user policy: on its first error, logs one line (through `log`) and
// uses `fallback` from then on. Never throws PolicyError.
class GuardedPolicy final : public Policy {
 public:
  GuardedPolicy(std::unique_ptr<Policy> user, std::unique_ptr<Policy> fallback,
                void (*log)(const std::string&));
  // A user policy that could not even be loaded: logs `load_failure` once
  // and uses `fallback` from the start (fell_back() is true).
  GuardedPolicy(std::string user_name, std::string load_failure, std::unique_ptr<Policy> fallback,
                void (*log)(const std::string&));
  std::string name() const override;
  std::vector<std::string> select(const Context& ctx) override;
  std::optional<bool> accept(const Context& ctx, const HistoryEntry& result) override;
  std::optional<bool> stop(const Context& ctx) override;
  bool fell_back() const { return m_failed; }
  const std::string& failure() const { return m_failure; }

 private:
  std::unique_ptr<Policy> m_user, m_fallback;
  void (*m_log)(const std::string&);
  bool m_failed = false;
  std::string m_failure;
  std::string m_user_name;
  void fail(const std::string& reason);
};

// Checks a selection against the contract (each id one of ctx.actions, no
// duplicates, non-empty unless ctx.actions is empty); throws PolicyError
// "<policy>: select() returned ..." otherwise.
void check_selection(const Context& ctx, const std::vector<std::string>& ids, const std::string& policy_name);

}  // namespace kernelblaster::policy
