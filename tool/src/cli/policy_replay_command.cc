#include <cstdio>
#include <filesystem>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "kb/kb_store.h"
#include "tuner/kb_bridge.h"
#include "tuner/policy_choice.h"
#include "tuner/replay.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster policy replay --results RECORDED.json [--policy FILE.lua|default] [options]

Runs the tuner's search loop with a policy against a recorded run (the --log
of `kernelblaster tune`, ideally an exhaustive one) instead of a GPU, once per
seed, and reports how many evaluations the policy needed to come within the
band of the recorded best, the best it reached, and how much of the space it
evaluated.

  --policy FILE.lua     the policy (default: the built-in one)
  --results FILE        the recorded run
  --kb FILE             warm-start estimates from this KB only (default: an
                        empty KB, so a replay depends on nothing else)
  --learn               after the first seed, record what it evaluated into
                        --kb, as a tuning run would
  --policy-seeds N      policy seeds, 1..N (default 10)
  --first-seed S        start there instead: S..S+N-1 (`tune`'s default
                        seed is 0)
  --max-evals N         stop each run after N evaluations (default: none)
  --band X              "within X of the best" (default 0.05)
  --json                print the report as JSON
  --trace FILE          write each seed's selections in order (id, status,
                        speedup, accepted) to FILE as JSON
  --builders N          play the run at a GPU's pace: N compile threads, each
  --build-s S           candidate's build S seconds and each measurement
  --measure-s S         S seconds (default 0), on a virtual clock; the loop
                        then measures what is built, as `tune` does (without
                        --builders: the policy's picks in its order)
  --budget S            with --builders, the search's seconds on the virtual
                        clock (what a run's setup, the original's build and
                        profile leave it): no measurement starts that would
                        end past them (default: none)
  --noise X             each verified measurement's speedup times
                        exp(X * N(0, 1)), drawn from the seed (a GPU's
                        run-to-run spread); a seed's best is then the
                        recorded figure of what it measured fastest

Exit status: 0 done, 2 bad usage or unreadable input.
)";

void print_line(const std::string& s) { std::fprintf(stderr, "kernelblaster policy replay: %s\n", s.c_str()); }

}  // namespace

int policy_replay_command(const CommandArgs& argv, const std::string& self_exe) {
  (void)self_exe;
  return run_command("policy replay", kHelp, argv, [&]() -> int {
    refuse_renamed(argv, {{"--seeds", "now --policy-seeds (--seeds is the input seeds per size in every command)"}});
    Args args(argv, {"--policy", "--results", "--kb", "--policy-seeds", "--max-evals", "--band", "--trace",
                     "--builders", "--build-s", "--measure-s", "--noise", "--first-seed", "--budget"},
              {"--json", "--learn"});
    std::string results = args.value("--results");
    if (results.empty()) throw UsageError("--results is required");
    std::string policy_path = args.value("--policy", "default");
    std::string kb_path = args.value("--kb");
    bool learn = args.flag("--learn");
    if (learn && kb_path.empty()) throw UsageError("--learn needs --kb");
    tuner::ReplayOptions ro;
    double seeds = args.number("--policy-seeds", 10), max_evals = args.number("--max-evals", 0);
    if (seeds < 1 || seeds != static_cast<int>(seeds)) throw UsageError("--policy-seeds needs a whole number >= 1");
    if (max_evals < 0 || max_evals != static_cast<int>(max_evals)) throw UsageError("--max-evals needs a whole number >= 0");
    ro.seeds = static_cast<int>(seeds);
    const double first_seed = args.number("--first-seed", 1);
    if (first_seed < 0 || first_seed != static_cast<std::uint64_t>(first_seed))
      throw UsageError("--first-seed needs a whole number >= 0");
    ro.first_seed = static_cast<std::uint64_t>(first_seed);
    ro.max_evals = static_cast<int>(max_evals);
    ro.band = args.number("--band", 0.05);
    if (ro.band < 0 || ro.band >= 1) throw UsageError("--band must be in [0, 1)");
    const double builders = args.number("--builders", 0);
    if (builders < 0 || builders != static_cast<int>(builders)) throw UsageError("--builders needs a whole number >= 0");
    ro.conditions = {static_cast<int>(builders), args.number("--build-s", 0), args.number("--measure-s", 0),
               args.number("--noise", 0)};
    if (ro.conditions.noise < 0 || ro.conditions.noise > 1) throw UsageError("--noise must be in [0, 1]");
    ro.conditions.budget_s = args.number("--budget", 0);
    if (ro.conditions.budget_s < 0) throw UsageError("--budget must be >= 0");
    if (!ro.conditions.builders && ro.conditions.budget_s > 0) throw UsageError("--budget needs --builders");
    if (ro.conditions.build_s < 0 || ro.conditions.measure_s < 0) throw UsageError("--build-s and --measure-s must be >= 0");
    if (!ro.conditions.builders && (!args.value("--build-s").empty() || !args.value("--measure-s").empty()))
      throw UsageError("--build-s and --measure-s need --builders");
    if (policy_path != "default" && !std::filesystem::is_regular_file(policy_path))
      throw UsageError("no such policy file: " + policy_path);

    tuner::RunLog log = tuner::run_log_from_json(read_file(results), results);
    kb::KnowledgeBase knowledge;
    if (!kb_path.empty() && std::filesystem::exists(kb_path)) knowledge = kb::load_kb(kb_path);
    bool warned = false;
    auto make_policy = [&](bool* fell_back) {
      // One line about a broken script, not one per seed.
      tuner::PolicyChoice c = tuner::choose_policy(policy_path, warned ? nullptr : print_line);
      warned = warned || c.failed_to_load;
      *fell_back = c.failed_to_load;
      return std::move(c.policy);
    };
    tuner::ReplayReport report = tuner::replay(log, knowledge, make_policy, ro);
    if (learn && !report.runs.empty()) {
      std::vector<kb::Outcome> outcomes = tuner::outcomes_of(tuner::replayed_log(log, report.runs.front()));
      if (!outcomes.empty()) kb::record_outcomes(kb_path, outcomes);
    }
    if (const std::string trace = args.value("--trace"); !trace.empty())
      write_file(trace, tuner::replay_trace_to_json(report) + "\n");
    std::fputs((args.flag("--json") ? tuner::replay_report_to_json(report) + "\n"
                                    : tuner::replay_report_to_text(report))
                   .c_str(),
               stdout);
    return 0;
  });
}

}  // namespace kernelblaster
