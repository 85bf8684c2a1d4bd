// A policy written in Lua 5.4, run in a sandbox: only the base, table, string,
// math and utf8 libraries (no io, os, package, debug, load of bytecode or
// string.dump), an instruction-count hook, a wall-clock deadline per call and
// an allocator with a byte cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "policy/policy.h"

namespace kernelblaster::policy {

// Per call; each grows with the context's actions, so a policy that is
// linear or n log n in them runs on a space of 32,768 configurations as on
// one of 30 (bench/kt_replay runs the shipped ones on 17,955).
struct SandboxLimits {
  std::int64_t instructions = 20'000'000;
  double seconds = 1.0;                    // wall clock
  std::size_t memory_bytes = 32u << 20;    // the whole state
  std::int64_t instructions_per_action = 2'000;
  double seconds_per_action = 50e-6;
  std::size_t memory_bytes_per_action = 4u << 10;
};

// Loads a script from text (never bytecode). Throws PolicyError with a
// one-line reason when it does not compile, errors at load, exceeds a limit
// or does not define select().
std::unique_ptr<Policy> load_lua_policy(const std::string& name, const std::string& text,
                                        const SandboxLimits& limits = {});
std::unique_ptr<Policy> load_lua_policy_file(const std::string& path, const SandboxLimits& limits = {});

// The policy's name for a script path: its file name without ".lua".
std::string policy_name_for_path(const std::string& path);

// What a tuning run uses: the script guarded by the default policy. A script
// that fails to load (missing file, syntax error, no select()) is logged once
// through `log` and the default is used from the start; never throws.
std::unique_ptr<GuardedPolicy> guard_lua_policy(const std::string& name, const std::string& text,
                                                void (*log)(const std::string&), const SandboxLimits& limits = {});
std::unique_ptr<GuardedPolicy> guard_lua_policy_file(const std::string& path, void (*log)(const std::string&),
                                                     const SandboxLimits& limits = {});

}  // namespace kernelblaster::policy
