// `kernelblaster policy check FILE.lua`: runs a policy on the built-in sample
// contexts and prints its choices; `policy replay` is policy_replay_command.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "policy/lua_policy.h"
#include "tuner/sample_contexts.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster policy check FILE.lua [--seed N] [--json]
       kernelblaster policy replay --policy FILE.lua --results RECORDED.json [options]

check: loads a Lua selection policy in the sandbox and runs its select(),
accept() and stop() on built-in sample contexts (a memory-bound kernel with
block-size and coarsening actions, a compute-bound kernel with compiler-flag
actions, a run with history, the end of a search), printing each choice.
Each call has the tuning run's limits (instructions, 1 s, 32 MiB); all calls
together get 3 s. The policy contract is in policies/README.md.

  --seed N     ctx.seed of the sample contexts (default 1)
  --json       print the choices as JSON

replay: runs a policy against recorded measurements; see
'kernelblaster policy replay --help'.

Exit status: 0 the policy works, 1 it failed (one line says why: an error, a
limit, something outside the sandbox, an invalid return), 2 bad usage.
)";

constexpr double kTotalSeconds = 3.0;

std::string shown_ids(const std::vector<std::string>& ids) {
  if (ids.empty()) return "(none)";
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < 4; ++i) out += (i ? ", " : "") + ids[i];
  if (ids.size() > 4) out += ", ... (" + std::to_string(ids.size()) + " in all)";
  return out;
}

const char* shown(const std::optional<bool>& b) { return !b ? "nil" : *b ? "true" : "false"; }

nlohmann::json to_json(const std::optional<bool>& b) { return b ? nlohmann::json(*b) : nlohmann::json(nullptr); }

struct CheckOptions {
  std::string path;
  std::uint64_t seed = 1;
  bool json = false;
};

CheckOptions parse_check(const CommandArgs& args) {
  CommandArgs options;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("-", 0) != 0) {
      files.push_back(args[i]);
    } else {
      options.push_back(args[i]);
      if (args[i] == "--seed" && i + 1 < args.size()) options.push_back(args[++i]);
    }
  }
  Args parsed(options, {"--seed"}, {"--json"});
  CheckOptions o;
  if (files.size() != 1) throw UsageError("policy check takes one policy file");
  o.path = files.front();
  o.json = parsed.flag("--json");
  std::string seed = parsed.value("--seed", "1");
  char* end = nullptr;
  unsigned long long n = std::strtoull(seed.c_str(), &end, 10);
  if (seed.empty() || !end || *end != '\0' || seed[0] == '-') throw UsageError("--seed needs a non-negative integer, got '" + seed + "'");
  o.seed = n;
  return o;
}

int check_command(const CommandArgs& args) {
  CheckOptions o = parse_check(args);
  if (!std::filesystem::is_regular_file(o.path)) throw UsageError("no policy file '" + o.path + "'");
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  nlohmann::json report = {{"policy", policy::policy_name_for_path(o.path)}, {"path", o.path}, {"seed", o.seed}};
  nlohmann::json contexts = nlohmann::json::array();
  auto fail = [&](const std::string& reason) {
    if (o.json) {
      report["ok"] = false;
      report["error"] = reason;
      report["contexts"] = contexts;
      std::printf("%s\n", report.dump(2).c_str());
    }
    std::fprintf(stderr, "kernelblaster policy check: %s\n", reason.c_str());
    return 1;
  };
  try {
    std::unique_ptr<policy::Policy> p = policy::load_lua_policy_file(o.path);
    if (!o.json) std::printf("policy %s (%s), seed %llu\n", p->name().c_str(), o.path.c_str(), static_cast<unsigned long long>(o.seed));
    for (const tuner::SampleContext& sample : tuner::sample_contexts(o.seed)) {
      auto over_time = [&] {
        return elapsed() > kTotalSeconds ? std::optional<std::string>(p->name() + ": the calls took more than 3 s in total")
                                         : std::nullopt;
      };
      if (auto late = over_time()) return fail(*late);
      std::vector<std::string> chosen = p->select(sample.ctx);
      if (auto late = over_time()) return fail(*late);
      policy::HistoryEntry result = tuner::sample_result(sample.ctx, chosen.empty() ? "" : chosen.front());
      std::optional<bool> accepted = p->accept(sample.ctx, result);
      if (auto late = over_time()) return fail(*late);
      std::optional<bool> stopped = p->stop(sample.ctx);
      contexts.push_back({{"name", sample.name},
                          {"actions", sample.ctx.actions.size()},
                          {"select", chosen},
                          {"accept", to_json(accepted)},
                          {"stop", to_json(stopped)}});
      if (!o.json) {
        std::printf("  %-20s %2zu actions  select -> %s\n", sample.name.c_str(), sample.ctx.actions.size(),
                    shown_ids(chosen).c_str());
        std::printf("  %-20s             accept(%s) -> %s, stop -> %s\n", "", result.action_id.c_str(),
                    shown(accepted), shown(stopped));
      }
    }
  } catch (const policy::PolicyError& e) {
    return fail(e.what());
  }
  if (o.json) {
    report["ok"] = true;
    report["contexts"] = contexts;
    std::printf("%s\n", report.dump(2).c_str());
  } else {
    std::printf("ok: %zu sample contexts in %.2f s\n", contexts.size(), elapsed());
  }
  return 0;
}

}  // namespace

int policy_command(const CommandArgs& args, const std::string& self_exe) {
  // `policy replay` has its own help and frame (policy_replay_command.cc).
  if (!args.empty() && args.front() == "replay")
    return policy_replay_command(CommandArgs(args.begin() + 1, args.end()), self_exe);
  return run_command("policy", kHelp, args, [&]() -> int {
    if (!args.empty() && args.front() == "help") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (args.empty() || args.front() != "check") throw subcommand_error(args, {"check", "replay"});
    return check_command(CommandArgs(args.begin() + 1, args.end()));
  });
}

}  // namespace kernelblaster
