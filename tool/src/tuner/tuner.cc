#include "tuner/tuner.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/launcher_mask.h"
#include "common/text.h"
#include "judge/candidate_build.h"
#include "judge/evaluator.h"
#include "judge/memcheck.h"
#include "kb/classifier.h"
#include "kb/kb_store.h"
#include "profile/gpu_helper.h"
#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/discovery.h"
#include "tuner/edge_check.h"
#include "tuner/engine_measurer.h"
#include "tuner/flag_space.h"
#include "tuner/guarded_winner.h"
#include "tuner/harness_space.h"
#include "tuner/kb_bridge.h"
#include "tuner/manifest_space.h"
#include "tuner/policy_choice.h"
#include "tuner/resume.h"
#include "tuner/reverify.h"
#include "tuner/run_log.h"
#include "tuner/search_loop.h"
#include "tuner/source_space.h"
#include "tuner/speculation.h"
#include "tuner/start_from.h"
#include "tuner/tune_phases.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {
namespace {

// Every visible GPU: devices answer the probe from 0 up.
std::vector<int> visible_devices(GpuProbe& probe) {
  std::vector<int> out;
  for (int d = 0; d < 64 && probe.probe(d).present; ++d) out.push_back(d);
  return out;
}

// The original's cheap profile, judged against itself without timing: the
// metrics that classify its state. Empty when the profiler has nothing.
std::map<std::string, double> original_metrics(const Toolchain& tc, GpuProbe& probe, const EngineTarget& t,
                                               const std::string& reference_binary, int device,
                                               std::string* why_none) {
  EvalRequest req;
  req.source = t.source;
  req.harness = t.harness;
  req.compile = t.compile;
  req.timing = false;
  req.profile = profile::MetricSet::cheap;
  req.device = device;
  req.lock_dir = t.lock_dir;
  req.run_timeout_s = t.run_timeout_s;
  req.reference_binary = reference_binary;
  req.candidate_binary = reference_binary;
  try {
    EvalResult r = Evaluator(tc, probe).evaluate(req);
    if (!r.profile.empty()) return r.profile.front().metrics;
    *why_none = r.profile_note.empty() ? std::string(status_name(r.status)) + (r.detail.empty() ? "" : ": " + r.detail)
                                       : r.profile_note;
  } catch (const std::exception& e) {
    *why_none = e.what();
  }
  return {};
}

// The KB's estimate of every configuration of the space, in its order.
std::vector<policy::KbEstimate> estimates_of(const kb::KnowledgeBase& kb, const std::string& state,
                                             const std::string& arch, const ConfigSpace& space) {
  std::vector<policy::KbEstimate> out;
  for (const Configuration& c : space.configs) out.push_back(estimate(kb, state, arch, c));
  return out;
}


using Say = std::function<void(const std::string&)>;

// Compile settings of the target, as `kernelblaster eval` takes them.
CompileSettings compile_settings(const TuneOptions& opt, const GpuInfo& gpu, const std::string& source) {
  return resolve_compile_settings(opt.manifest, opt.arch, opt.include_dirs, opt.definitions, gpu.arch, source);
}

// What the search ranges over, and the copy candidates are made from.
struct TuneSpace {
  SpaceDecl decl;
  std::string text;  // the copy candidates are made from
  std::vector<FlagDimension> flags;
  ConfigSpace space;
  std::vector<LaunchSite> sites;  // the launch sites whose tunables were found
  // A harness that replays recorded launches, its launchers reshaped by the
  // source's launch expressions (replay_shapes.h): its text ("" when the
  // user's harness is used as it is) and the tunables it reads by -D.
  std::string harness_text;
  std::vector<std::string> harness_macros;
  std::string harness_read;  // the user's (or synthesized) harness as read: what the search's state is measured with
};

TuneSpace tune_space(const TuneOptions& opt, const std::string& text, const std::string& source,
                     const CompileSettings& cs, const std::string& kernel, const Say& say) {
  TuneSpace t;
  SourceSpace found = source_space({text, source, cs.arch, opt.manifest, cs.definitions, cs.include_dirs});
  t.decl = std::move(found.decl);
  t.text = found.text;
  t.sites = found.launch.sites;
  if (!found.summary.empty()) {
    std::string list;
    for (const std::string& s : found.summary) list += (list.empty() ? "" : ", ") + s;
    say("[tune] " + kernel + ": tunables found without directives: " + list);
  }
  // What the harness runs decides what is searched (harness_space.h).
  t.harness_read = read_file(opt.harness);
  const HarnessSpace hs =
      harness_space(t.harness_read, found, text, source, cs.include_dirs, t.decl, opt.partial_harness);
  for (const std::string& line : hs.lines) say("[tune] " + kernel + ": " + line);
  t.harness_text = hs.harness;
  t.harness_macros = hs.harness_macros;
  if (!opt.no_flags && !opt.partial_harness) t.flags = t.decl.flags_declared ? t.decl.flags : default_flag_dimensions(cs.arch);
  t.space = enumerate_space(t.decl, t.flags);
  if (t.space.capped)
    say("[tune] " + kernel + ": " + std::to_string(t.space.valid - 1) + " configurations, searching " +
        std::to_string(t.space.configs.size()) + ": " +
        (t.space.near > 0 ? "the " + std::to_string(t.space.near) + " within " + std::to_string(t.space.near_steps) +
                                " setting(s) of the original, and an even spread of the rest"
                          : "an even spread"));
  return t;
}

// Why a space with no configuration is searched no further.
std::string nothing_to_tune(const TuneOptions& opt, const std::string& kernel) {
  if (opt.partial_harness)
    return "nothing to tune: the harness runs only part of " + kernel +
           ", and the launch sites it runs have no tunables of their own (a flag would reach the kernels it does "
           "not run)";
  return "nothing to tune: " + kernel + " has no tunables (declared or found) and flags are off";
}

// The seed KB under the user's: a broken or missing KB never stops tuning.
kb::KnowledgeBase load_knowledge(const std::string& kb_path, const std::string& self_exe, const Say& say) {
  try {
    return kb::load_for_run(self_exe, kb_path);
  } catch (const std::exception& e) {
    say(std::string("[tune] knowledge base not used: ") + e.what());
  }
  return {};
}

RunLog start_run_log(const std::string& kernel, const std::string& source, const CompileSettings& cs,
                     const GpuInfo& gpu, const TuneSpace& t, const std::string& policy) {
  RunLog log;
  log.kernel = kernel;
  log.source = source;
  log.arch = cs.arch;
  log.gpu = gpu.name;
  log.date = utc_now_iso8601();
  log.tunables = t.decl.tunables;
  for (const Constraint& c : t.decl.constraints) log.constraints.push_back(c.text());
  log.flag_dimensions = t.flags;
  log.space_size = t.space.configs.size();
  log.space_capped = t.space.capped;
  log.policy = policy;
  return log;
}

// What the loop did, into the summary and the log. The summary counts the
// earlier runs' evaluations of a resumed search too; the log (and the KB
// learning from it) this run's alone.
void record_loop(const LoopOutcome& outcome, EngineMeasurer& measurer, const ConfigSpace& space,
                 const std::vector<std::string>& guesses, TuneSummary& sum, RunLog& log) {
  sum.evaluations = static_cast<int>(outcome.evaluations.size());
  sum.evaluations_now = sum.evaluations - outcome.earlier;
  sum.search_stop = search_stop_name(outcome.stop);
  for (const EvaluationRecord& r : outcome.evaluations)
    if (r.duplicate_of.empty()) ++sum.outcomes[r.status];
    else ++sum.duplicates;
  log.evaluations.assign(outcome.evaluations.begin() + outcome.earlier, outcome.evaluations.end());
  for (const EvaluationRecord& r : log.evaluations)
    if (r.reference_median_us > 0 && r.duplicate_of.empty()) {
      log.reference_median_us = r.reference_median_us;
      break;
    }
  log.original_sass_hash = measurer.machine_code(space.original);
  sum.reference_median_us = log.reference_median_us;
  for (const EvaluationRecord& r : log.evaluations)
    if (r.device >= 0) {
      sum.first_measurement_s = r.at_s;
      break;
    }
  sum.builds = measurer.builds_requested();
  sum.speculative_builds = static_cast<int>(guesses.size());
  for (const std::string& id : guesses)
    for (const EvaluationRecord& r : outcome.evaluations)
      if (r.id == id) ++sum.speculative_builds_used;
}

void conclude(TuneSummary& sum, TuneVerdict status, std::string reason) {
  sum.exit_code = status == TuneVerdict::tuned ? 0 : status == TuneVerdict::not_measured ? 3 : 1;
  sum.status = status;
  sum.reason = std::move(reason);
}

// Fresh seeds for a winner's look, spread over the run's GPUs (at least 3
// on each): as many as a measurement's. The tuner's candidates are the
// user's source with other values, the screen has run each of them at
// every size already, and a look is its run's dearest part: twice the
// seeds made SGEMM_CUDA's looks at two launcher groups 78 s of a build
// whose budget is 60 s (an H100, 2026-12-07).
int look_seeds(const TuneOptions& opt) { return std::max(3, opt.seeds); }

// The guard's progress line, as the run's others ("" when quiet).
Progress guard_progress(const TuneOptions& opt, const std::string& kernel, const Say& say) {
  if (opt.quiet) return {};
  return [kernel, say](const std::string& line) { say("[tune] " + kernel + "  " + line); };
}

// A look's phases, added to those of its kind.
void add_look_phases(TuneSummary& sum, const std::string& look, const CandidateResult& r) {
  for (const auto& [name, seconds] : r.phases_s) sum.look_phases_s[look][name] += seconds;
}

// A second look's checks, one per GPU, and where their seconds went.
void record_look(TuneSummary& sum, const Reverification& again) {
  for (const DeviceCheck& c : again.checks) {
    sum.reverification.push_back(c);
    add_look_phases(sum, "reverify", c.result);
  }
}

// The winner's source to opt.out, and the run tuned: as the search built
// it (`plain`), or with its launchers kept as written where its second
// look found them slower (guarded_winner.h); the summary then holds what
// that source measured (a composed winner keeps its groups' lowest
// speedup, the guarded source's look is its whole harness). A guarded
// source not faster than the floor ends the run with the original.
void write_winner(const TuneOptions& opt, const std::string& plain, const GuardedWinner& guarded,
                  const std::string& id, TuneSummary& sum) {
  sum.shape_guard = guarded.line;
  add_look_phases(sum, "guard", guarded.look);
  if (guarded.below_floor) return conclude(sum, TuneVerdict::no_gain, "the winner " + id + " is " + guarded.line);
  if (guarded.kept) {
    if (!guarded.look.kernel_speedups.empty()) sum.kernel_speedups = guarded.look.kernel_speedups;
    sum.slower_at_a_size = guarded.look.slower_at_a_size;
    sum.other_sizes = guarded.look.other_sizes;
    sum.launch_paced = guarded.look.launch_paced;
    if (!sum.launcher_groups.empty()) {
      sum.whole_speedup = guarded.look.speedup;
    } else {
      sum.speedup = guarded.look.speedup;
      sum.best_median_us = guarded.look.median_us;
      sum.reference_median_us = guarded.look.reference_median_us;
    }
  }
  if (!opt.out.empty()) write_file_atomic(opt.out, guarded.kept ? guarded.text : plain);
  conclude(sum, TuneVerdict::tuned, "");
}

// The winner at its launchers' branch edges (edge_check.h): true when it
// is refused there (the run concluded).
bool refused_at_edges(const TuneOptions& opt, const EdgeCheck& edges, EngineMeasurer& measurer,
                      const std::string& kernel, const std::string& id, int device, const Say& say, TuneSummary& sum) {
  const EdgeVerdict v = finish_edge_check(edges, measurer, device, std::max(3, opt.seeds));
  sum.edge_check = v.line;
  if (!opt.quiet && !v.line.empty()) say("[tune] " + kernel + "  " + id + ": " + v.line);
  if (v.refused) conclude(sum, TuneVerdict::no_gain, id + ": " + v.line);
  return v.refused;
}

// The verdict of a search judged group by group: each group's best looked
// at again alone, the ones that hold composed, the composition checked on
// the whole harness (focused_winner.h), its source written to opt.out.
void decide_focused(const TuneOptions& opt, const LoopOutcome& outcome, const SpaceDecl& decl,
                    EngineMeasurer& measurer, const std::string& kernel, const Say& say, PhaseClock& phases,
                    TuneSummary& sum, RunLog& log) {
  phases.next("reverify");
  const int total = look_seeds(opt);
  const LauncherFocus& focus = measurer.focus();
  const Look look = [&](const Configuration& c) {
    if (!opt.quiet)
      say("[tune] " + kernel + "  re-verifying " + c.id + " on " + focus.names(focus.mask(c)) + " with fresh seeds");
    Reverification again = reverify(measurer, c, sum.devices, total);
    record_look(sum, again);
    if (const DeviceCheck* bad = again.failure()) return bad->result;
    for (const DeviceCheck& d : again.checks)
      if (!d.result.keepable()) return d.result;
    return again.slowest()->result;
  };
  const Look whole = [&](const Configuration& c) {
    if (!opt.quiet) say("[tune] " + kernel + "  checking " + c.id + " on the whole harness");
    CandidateResult r = measurer.remeasure_whole(c, sum.devices.front(), total);
    add_look_phases(sum, "whole", r);
    return r;
  };
  const EvaluationRecord& best = outcome.evaluations[outcome.best];
  sum.search_speedup = best.speedup;
  if (const auto expected = expected_composition(outcome.evaluations, decl.tunables, focus, opt.min_speedup))
    measurer.prepare_whole(*expected);  // built while the groups' looks run
  FocusedWinner w = compose_winner(outcome.evaluations, decl.tunables, focus, opt.min_speedup, look, whole);
  sum.launcher_groups = w.groups;
  sum.whole_speedup = w.whole_checked && w.whole.verified() ? w.whole.speedup : 0;
  if (!w.found)
    return conclude(sum, w.whole_checked && !w.whole.verified() ? TuneVerdict::failed : TuneVerdict::no_gain,
                    w.reason);
  log.best = w.config.id;
  sum.speedup = log.best_speedup = w.speedup();
  for (const GroupResult& g : w.groups)
    if (g.kept && g.look.speedup == sum.speedup) {
      sum.best_median_us = g.look.median_us;
      sum.reference_median_us = g.look.reference_median_us;
    }
  sum.config = w.config.values;
  sum.flags = w.config.flags;
  sum.per_launcher = w.summary();
  std::vector<std::string> memchecks;  // each kept group's look ran its own
  for (const GroupResult& g : w.groups)
    if (g.kept && !g.look.memcheck.empty() &&
        std::find(memchecks.begin(), memchecks.end(), g.look.memcheck) == memchecks.end())
      memchecks.push_back(g.look.memcheck);
  sum.memcheck = joined(memchecks, "; ");
  for (const GroupResult& g : w.groups)
    if (g.kept) {
      sum.kernel_speedups.insert(g.look.kernel_speedups.begin(), g.look.kernel_speedups.end());
      if (sum.slower_at_a_size.empty()) sum.slower_at_a_size = g.look.slower_at_a_size;
      if (sum.other_sizes.empty()) sum.other_sizes = g.look.other_sizes;
      if (sum.launch_paced.empty()) sum.launch_paced = g.look.launch_paced;
    }
  phases.next("guard");
  const EdgeCheck edges = start_edge_check(measurer, w.config);  // built while the guarded look runs
  const GuardedWinner guarded =
      guard_composed(measurer, w, decl, sum.devices.front(), std::max(3, opt.seeds), guard_progress(opt, kernel, say));
  phases.next("edges");
  if (refused_at_edges(opt, edges, measurer, kernel, w.config.id, sum.devices.front(), say, sum)) return;
  write_winner(opt, measurer.source_of(w.config), guarded, w.config.id, sum);
}

// A harness of several launchers times them as one call, each on buffers of
// its own after an L2 flush: every kernel reads from DRAM. A program that
// calls one of them back to back finds its data in the L2, where another
// tile may be best (cuda-samples transpose: 1.10x in the harness, two
// kernels 6% slower in the sample's own loop). So the winner is timed on
// each launcher alone too; "" when none is slower, else why not to keep it.
std::string slower_alone(const TuneOptions& opt, EngineMeasurer& measurer, const Configuration& winner,
                         const std::string& kernel, const Say& say, TuneSummary& sum) {
  if (sum.launchers_alone < 2) return "";
  const std::vector<std::string> names = harness_launchers(read_file(measurer.target().harness));
  if (!opt.quiet)
    say("[tune] " + kernel + "  timing the winner on each of " + std::to_string(sum.launchers_alone) +
        " launchers alone, its data left in the L2");
  const std::vector<CandidateResult> alone =
      measurer.remeasure_each_alone(winner, sum.launchers_alone, sum.devices.front(), std::max(3, opt.seeds));
  for (std::size_t k = 0; k < alone.size(); ++k) {
    const std::string name = k < names.size() ? names[k] : "launcher " + std::to_string(k);
    if (!alone[k].verified())
      return "failed on " + name + " alone: " + status_name(alone[k].status) + ": " + alone[k].detail;
    if (!alone[k].keepable())
      return "makes " + name + " slower when it runs alone (" + alone[k].slower_kernel + ")";
  }
  return "";
}

// Every evaluation found the original itself failing, or a harness that
// cannot be used (a buffer declared twice): nothing was measured, which is
// no "nothing beat the original" and must not be cached as one. "" else.
std::string harness_failure(const LoopOutcome& outcome) {
  // What ran: a candidate with the original's machine code was never run.
  std::vector<const EvaluationRecord*> ran;
  for (const EvaluationRecord& e : outcome.evaluations)
    if (e.duplicate_of.empty()) ran.push_back(&e);
  if (outcome.best >= 0 || ran.empty()) return "";
  const auto all = [&](auto pred) { return std::all_of(ran.begin(), ran.end(), pred); };
  if (all([](const EvaluationRecord* e) { return e->status == Status::reference_failed; }))
    return "the original fails with its harness: " + ran.front()->detail;
  if (all([](const EvaluationRecord* e) {
        return e->status == Status::harness_error || e->status == Status::reference_failed;
      }))
    return "the harness fails: " + ran.front()->detail;
  return "";
}

// The verdicts that need no look at a winner: the harness failing, no time
// for a try, nothing verified that beat the original. True when concluded.
bool concluded_without_a_winner(const LoopOutcome& outcome, PhaseClock& phases, bool state_kept, TuneSummary& sum) {
  if (const std::string failure = harness_failure(outcome); !failure.empty()) {
    conclude(sum, TuneVerdict::not_measured, failure);
    sum.harness_failed = true;
  } else if (outcome.evaluations.empty() &&
             (outcome.stop == SearchStop::deadline || outcome.stop == SearchStop::build_past_deadline)) {
    conclude(sum, TuneVerdict::no_gain,
             "the budget left no time to try a configuration (building and running the original took " +
                 std::to_string(static_cast<int>(first_measurement_estimate(phases.read()) + 0.5)) + " s)" +
                 (state_kept ? "" : "; raise BUDGET"));
  } else if (outcome.best < 0 && outcome.best_slowing >= 0) {
    const EvaluationRecord& s = outcome.evaluations[static_cast<std::size_t>(outcome.best_slowing)];
    conclude(sum, TuneVerdict::no_gain,
             "no verified configuration beat the original in " + std::to_string(sum.evaluations) +
                 " evaluations without slowing a kernel down (the fastest, " + s.id + " at " +
                 speedup_text(s.speedup) + ", made " + s.slower_kernel + ")");
  } else if (outcome.best < 0) {
    conclude(sum, TuneVerdict::no_gain,
             "no verified configuration beat the original in " + std::to_string(sum.evaluations) + " evaluations");
  } else {
    return false;
  }
  return true;
}

// The verdict on the loop's best: below --min-speedup, failed or slower in
// re-verification, or tuned (its source written to opt.out). A best that
// fails its look (a wrong result or a crash with fresh seeds) gives way to
// the next fastest that does not make its changes, as a group's does
// (focused_winner.h), up to kLooksPerGroup looks in all.
void decide_winner(const TuneOptions& opt, const LoopOutcome& outcome, const SpaceDecl& decl,
                   EngineMeasurer& measurer, const std::string& kernel, const Say& say, PhaseClock& phases,
                   TuneSummary& sum, RunLog& log, std::vector<Settings> failed = {}) {
  if (concluded_without_a_winner(outcome, phases, !opt.state_dir.empty(), sum)) return;
  if (measurer.focus().active() &&
      has_group_gain(outcome.evaluations, decl.tunables, measurer.focus(), opt.min_speedup))
    return decide_focused(opt, outcome, decl, measurer, kernel, say, phases, sum, log);
  const EvaluationRecord& best = outcome.evaluations[outcome.best];
  Configuration winner = make_configuration(decl.tunables, best.settings, best.flags);
  log.best = best.id;
  log.best_speedup = best.speedup;
  sum.search_speedup = best.speedup;
  sum.best_median_us = best.median_us;
  sum.config = winner.values;
  sum.flags = winner.flags;
  if (best.speedup < opt.min_speedup)
    return conclude(sum, TuneVerdict::no_gain,
                    "best " + speedup_text(best.speedup) + " (" + best.id + ") is below --min-speedup " +
                        speedup_text(opt.min_speedup));
  // Believe the winner only after a fresh look: new seeds (look_seeds()),
  // spread over every GPU of the run; all must pass, the lowest speedup counts.
  phases.next("reverify");
  if (!opt.quiet)
    say("[tune] " + kernel + "  re-verifying " + best.id + " with fresh seeds on " +
        std::to_string(sum.devices.size()) + (sum.devices.size() == 1 ? " GPU" : " GPUs"));
  const GuardGuess guess = guess_guard(measurer, winner, decl, best);  // built while the look runs
  const EdgeCheck edges = start_edge_check(measurer, winner);             // so are the edges' programs
  Reverification again = reverify(measurer, winner, sum.devices, look_seeds(opt));
  record_look(sum, again);
  if (const DeviceCheck* bad = again.failure()) {
    failed.push_back(changes_of(best));
    const int next = next_to_look_at(outcome.evaluations, opt.min_speedup, failed);
    if (next >= 0 && failed.size() < kLooksPerGroup) {
      if (!opt.quiet)
        say("[tune] " + kernel + "  " + best.id + " failed its look (" + status_name(bad->result.status) +
            "): looking at the next fastest");
      LoopOutcome rest = outcome;
      rest.best = next;
      return decide_winner(opt, rest, decl, measurer, kernel, say, phases, sum, log, failed);
    }
    return conclude(sum, TuneVerdict::failed,
                    "the winner " + best.id + " failed re-verification on GPU " + std::to_string(bad->device) +
                        ": " + status_name(bad->result.status) + ": " + bad->result.detail);
  }
  const DeviceCheck& believed = *again.slowest();
  sum.memcheck = believed.result.memcheck;
  // What the search saw at one size stands when the fresh look missed it.
  sum.slower_at_a_size =
      believed.result.slower_at_a_size.empty() ? best.slower_at_a_size : believed.result.slower_at_a_size;
  sum.other_sizes = believed.result.other_sizes;
  sum.launch_paced = believed.result.launch_paced;
  sum.kernel_speedups = believed.result.kernel_speedups;
  for (const DeviceCheck& c : again.checks)
    if (!c.result.keepable())
      return conclude(sum, TuneVerdict::no_gain,
                      "the winner " + best.id + " made a kernel slower when measured again on GPU " +
                          std::to_string(c.device) + ": " + c.result.slower_kernel);
  sum.speedup = believed.result.speedup;
  sum.best_median_us = believed.result.median_us;
  sum.reference_median_us = believed.result.reference_median_us;
  if (sum.speedup < opt.min_speedup)
    return conclude(sum, TuneVerdict::no_gain,
                    "the winner " + best.id + " re-measured at " + speedup_text(sum.speedup) +
                        (sum.devices.size() > 1 ? " (its lowest over the GPUs)" : "") + ", below --min-speedup " +
                        speedup_text(opt.min_speedup));
  if (const std::string slower = slower_alone(opt, measurer, winner, kernel, say, sum); !slower.empty())
    return conclude(sum, TuneVerdict::no_gain, "the winner " + best.id + " " + slower);
  phases.next("edges");
  if (refused_at_edges(opt, edges, measurer, kernel, best.id, believed.device, say, sum)) return;
  phases.next("guard");
  write_winner(opt, measurer.source_of(winner),
               guard_winner(measurer, winner, decl, believed.result, guess, believed.device,
                            std::max(3, opt.seeds), guard_progress(opt, kernel, say)),
               best.id, sum);
}

// The KB learns from every evaluation; the log is written last.
void learn_and_log(const TuneOptions& opt, const std::string& kb_path, const Say& say, PhaseClock& phases,
                   TuneSummary& sum, RunLog& log) {
  phases.next("finish");
  try {
    std::vector<kb::Outcome> outcomes = outcomes_of(log);
    if (!outcomes.empty()) kb::record_outcomes(kb_path, outcomes);
  } catch (const std::exception& e) {
    say(std::string("[tune] the knowledge base did not learn from this run: ") + e.what());
  }
  // Everything but writing the log itself, which reports it.
  const PhaseClock::Reading times = phases.read();
  sum.seconds = times.total;
  sum.phases_s = log.phases_s = times.phases;
  if (!opt.log.empty()) write_file_atomic(opt.log, run_log_to_json(log) + "\n");
}

}  // namespace

namespace {

// The engine's view of the source: prepared text, harness, compile settings,
// scratch and lock directories, the per-measurement seeds and budget.
EngineTarget engine_target(const TuneOptions& opt, const std::string& source, const TuneSpace& ts,
                           const CompileSettings& cs, const std::string& work_dir) {
  EngineTarget target;
  target.source = source;
  target.source_text = ts.text;
  target.harness = fs::absolute(opt.harness).string();
  if (!ts.harness_text.empty()) {
    target.harness = work_dir + "/" + fs::path(opt.harness).filename().string();
    write_file(target.harness, ts.harness_text);
    target.harness_macros = ts.harness_macros;
  }
  target.compile = cs;
  target.work_dir = work_dir;
  target.lock_dir = default_lock_dir();
  target.seeds = opt.seeds;
  target.budget_ms = opt.budget_ms;
  target.screen_budget_ms = opt.screen_budget_ms;
  target.run_timeout_s = opt.run_timeout_s;
  return target;
}

LoopOptions loop_options(const TuneOptions& opt, const TuneSummary& sum, const CompilePool& pool,
                         const std::string& kernel, const CompileSettings& cs, const GpuInfo& gpu,
                         std::vector<std::string> first_picks) {
  LoopOptions lo;
  lo.first_picks = std::move(first_picks);
  lo.max_evals = opt.max_evals;
  lo.budget_s = opt.budget_s;
  lo.devices = sum.devices;
  lo.prefetch = prefetch_for_pool(pool.threads());
  lo.seed = opt.seed;
  lo.facts.kernel = kernel;
  lo.facts.arch = cs.arch;
  lo.facts.gpu = gpu.name;
  return lo;
}

// The configuration the run measures first (TuneOptions::start_from), as a
// first pick; one today's space does not hold is said and left.
std::vector<std::string> start_picks(const std::string& spec, const ConfigSpace& space, const Say& say) {
  if (spec.empty()) return {};
  std::optional<std::string> id;
  try {
    id = find_start(space, parse_start_from(spec));
  } catch (const std::invalid_argument& e) {
    say("not starting from " + quoted_excerpt(spec, 200) + ": " + e.what());
    return {};
  }
  if (!id) {
    say("the last winner " + quoted_excerpt(spec, 200) + " is not in this space (a tunable, value or flag the source no "
        "longer has, or the original itself): starting afresh");
    return {};
  }
  say("starting from the last winner: " + *id);
  return {*id};
}

// The [tune] line after each evaluation: done/total, the best so far, and a
// failure's status.
std::function<void(const LoopProgress&)> progress_lines(const TuneOptions& opt, const std::string& kernel,
                                                        const Say& say) {
  return [&opt, kernel, say](const LoopProgress& p) {
    if (opt.quiet) return;
    std::string line = "[tune] " + kernel + "  " + std::to_string(p.done) + "/" + std::to_string(p.total) +
                       "  best " + speedup_text(p.best_speedup);
    if (!p.best_id.empty()) line += " (" + p.best_id + ")";
    if (p.seconds_left >= 0) line += "  " + std::to_string(static_cast<int>(p.seconds_left + 0.5)) + " s left";
    line += ", ~" + std::to_string(evaluations_left_estimate(p)) + " more";
    if (p.last && p.last->status != Status::ok) line += "  [" + p.last->id + ": " + status_name(p.last->status) + "]";
    say(line);
  };
}

// The GPU of the run and every device it measures on; false, with the
// summary saying no_gpu, when there is none.
bool take_devices(const TuneOptions& opt, GpuProbe& probe, const GpuInfo& gpu, TuneSummary& sum) {
  if (!gpu.present) {
    sum.exit_code = 77;
    sum.status = TuneVerdict::no_gpu;
    sum.reason = gpu.reason.empty() ? "no GPU" : gpu.reason;
    return false;
  }
  sum.gpu = gpu.name;
  sum.devices = opt.devices.empty() ? visible_devices(probe) : opt.devices;
  for (int d : sum.devices)
    if (!probe.probe(d).present) throw std::runtime_error("--devices: no GPU " + std::to_string(d));
  return true;
}

// This GPU's roofline ceilings, measured once per machine while the
// original builds (the GPU is idle then) and cached: the plausibility line
// of every evaluation reads them. Nothing where the GPU helper is not
// installed beside the tool.
std::future<profile::CeilingsLookup> ceilings_while_building(const std::string& self_exe, int device) {
  const std::string helper = profile::find_gpu_helper(self_exe);
  if (!fs::exists(helper)) return {};
  return std::async(std::launch::async, [helper, device] {
    return profile::ceilings_for(helper, device, profile::default_cache_dir(), false);
  });
}

void report_ceilings(std::future<profile::CeilingsLookup>& pending, const Say& say) {
  if (!pending.valid()) return;
  const profile::CeilingsLookup found = pending.get();
  for (const std::string& note : found.notes) say(note);
  if (const std::string line = profile::ceilings_line(found); !line.empty()) say(line);
}

// The original built with its harness (this GPU's ceilings, measured
// meanwhile, reported); false, with the summary saying why the run failed,
// when it does not build.
bool build_original(EngineMeasurer& measurer, PhaseClock& phases, TuneSummary& sum,
                    std::future<profile::CeilingsLookup> ceilings, const Say& say) {
  std::string why;
  const bool built = measurer.build_reference(&why);
  report_ceilings(ceilings, say);  // measured while the original built
  if (built) return true;
  // "nvcc could not be run (...)" is the cause itself; anything else is the source's.
  conclude(sum, TuneVerdict::not_measured,
           why.rfind("nvcc could not be run", 0) == 0 ? why : "the original does not build with its harness: " + why);
  const PhaseClock::Reading times = phases.read();
  sum.seconds = times.total;
  sum.phases_s = times.phases;
  return false;
}

// The original's state: its cheap profile, classified by the KB; says why
// when the profile gave nothing (the state stays unclassified).
void classify_original(const Toolchain& tc, GpuProbe& probe, const EngineTarget& target,
                       const EngineMeasurer& measurer, const kb::KnowledgeBase& knowledge, const TuneOptions& opt,
                       const std::string& kernel, const Say& say, TuneSummary& sum, RunLog& log,
                       const std::optional<SearchState>& earlier) {
  if (earlier && !earlier->metrics.empty()) {  // profiled by an earlier run of the search: the same original
    log.metrics = earlier->metrics;
    log.state = sum.state = earlier->state;
    return;
  }
  std::string why_no_profile;
  log.metrics = original_metrics(tc, probe, target, measurer.reference_binary(), sum.devices.front(), &why_no_profile);
  if (log.metrics.empty() && !opt.quiet)
    say("[tune] " + kernel + "  the original's profile gave no metrics (" + why_no_profile +
        "); its state stays unclassified");
  if (!log.metrics.empty()) log.state = kb::classify(knowledge, log.metrics).state;
  sum.state = log.state;
}

// The groups of launch sites judged by their own launchers alone
// (launcher_focus.h), where the harness names its launchers.
void focus_groups(const TuneOptions& opt, const EngineTarget& target, const TuneSpace& ts, const std::string& kernel,
                  const Say& say, EngineMeasurer& measurer, TuneSummary& sum) {
  measurer.focus(launcher_focus(harness_launchers(read_file(target.harness)), ts.sites, ts.decl.tunables));
  sum.focused_groups = static_cast<int>(measurer.focus().group_masks.size());
  const std::size_t launchers = harness_launchers(read_file(target.harness)).size();
  if (sum.focused_groups == 0 && launchers >= 2)
    sum.launchers_alone = static_cast<int>(std::min<std::size_t>(launchers, kMaskedLaunchers));
  if (sum.focused_groups > 0 && !opt.quiet)
    say("[tune] " + kernel + ": " + std::to_string(sum.focused_groups) +
        " group(s) of launch sites judged by their own launchers alone, the others on the whole harness");
}

// The winner runs once under compute-sanitizer's memcheck where the toolkit has it.
EvalRequest::Memcheck winner_memcheck(const Toolchain& tc) {
  EvalRequest::Memcheck m;
  m.wanted = true;
  m.tool = find_compute_sanitizer(tc.nvcc, &m.missing);
  return m;
}

// What the search may spend, from what the run has spent so far. The
// winner's re-verification (a main and a warm round) and, where groups are
// judged alone, its whole-harness build and check follow the loop: about two
// and five measurements' time (convolutionSeparable, SGEMM_CUDA on an H100);
// a harness with sizes the search does not time one more, for the look at a
// winner kept as written where it is slower (guarded_winner.h: its build
// overlaps the winner's look). Those paces are full checks' (the search
// screens: search_loop.h), and where groups are judged alone, each group
// with a gain has a look of its own. They undercount where a look times
// many more sizes than the search: SGEMM_CUDA's kernel 10 on an H200
// (2026-11-29, measurements of 2.9 s) spent 14.5 measurements' time on its
// look and 5 on the guarded look; the cap at half the budget binds there
// anyway. What times nothing is kept at a search measurement's own pace
// (LoopOptions::finish_untimed): a winner checked under compute-sanitizer
// kMemcheckPaces, one checked at its launchers' branch edges kEdgePaces (its
// harness builds while the winner's look runs). On an H200 (2026-11-30)
// memcheck took 0.5 s at the examples' paces of 1.2 s and 1.3-2.9 s at
// SGEMM_CUDA's of about 2 s; the edges 0.5 and 0.9-1.1 s.
// An evaluation's part for look_stands(): the launcher groups its changes reach.
PartOf part_of(const EngineMeasurer& measurer, const SpaceDecl& decl) {
  return [&measurer, &decl](const EvaluationRecord& e) {
    return measurer.focus().mask(make_configuration(decl.tunables, e.settings, e.flags));
  };
}

constexpr double kMemcheckPaces = 1;
constexpr double kEdgePaces = 0.5;
void set_search_deadline(const TuneOptions& opt, const PhaseClock::Reading& before_search, const TuneSummary& sum,
                         bool memcheck, const EngineMeasurer& measurer, const SpaceDecl& decl, const Resumed& resumed,
                         LoopOptions& lo) {
  const std::string harness = read_file(measurer.target().harness);
  const bool untimed_sizes = harness.find(".validation_size(") != std::string::npos;
  const bool edges = has_edges(harness, measurer.target().source_text);
  lo.budget_s = search_budget(opt.budget_s, before_search);
  lo.finish_paces = (sum.focused_groups > 0 ? 5 : 2 + sum.launchers_alone) + (untimed_sizes ? 1 : 0);
  lo.finish_untimed = (memcheck ? kMemcheckPaces : 0) + (edges ? kEdgePaces : 0);
  // Groups judged alone may each hold a winner below the whole's best, and
  // each such group is looked at on its own.
  lo.reserve_from_speedup = sum.focused_groups > 0 ? 0 : opt.min_speedup;
  lo.look_from_speedup = sum.focused_groups > 0 ? opt.min_speedup : 0;
  // A resumed search whose earlier best was looked at keeps time for a
  // look only once something passes it (resume.h).
  if (const double looked = looked_up_to(resumed, opt.min_speedup); looked > 0 && sum.focused_groups == 0)
    lo.reserve_from_speedup = std::max(lo.reserve_from_speedup, looked * (1 + 1e-9));
  // Nor while every new best gains too little on the one it looked at.
  if (resumed.state && !resumed.state->look_of.empty())
    lo.look_due = [&resumed, min = opt.min_speedup, part = part_of(measurer, decl)](
                      const std::vector<EvaluationRecord>& evaluations) {
      return !look_stands(resumed, evaluations, min, part);
    };
  lo.first_pace_s = first_measurement_estimate(before_search);
  // The original's build and profile kept from an earlier run took no time
  // here: a measurement's pace is the earlier run's.
  if (resumed.state && resumed.state->pace_s > lo.first_pace_s) lo.first_pace_s = resumed.state->pace_s;
}

}  // namespace

static int gpu_of(const TuneOptions& opt) { return opt.devices.empty() ? 0 : opt.devices.front(); }

namespace {

// What run_tune sets up before its search, in one place: the space, the
// engine over it, the policy, the log, the loop's options.
struct TuneSetup {
  std::string source, kernel;
  GpuInfo gpu;
  CompileSettings cs;
  TuneSpace ts;
  Resumed resumed;
};

// The setup's first part: the GPU, the space, the search's earlier state.
// False with the summary concluded when there is no GPU or nothing to tune.
bool set_up(const TuneOptions& opt, GpuProbe& probe, const Say& say, TuneSetup& t, TuneSummary& sum) {
  for (const std::string* p : {&opt.source, &opt.harness})
    if (!fs::is_regular_file(*p)) throw std::runtime_error("no such file: " + *p);
  t.source = fs::absolute(opt.source).lexically_normal().string();
  const std::string text = read_file(t.source);
  // The name the lines, the log and the KB's notes use: the user's source,
  // also when the file tuned is a rewrite of it (--name).
  t.kernel = opt.name.empty() ? fs::path(t.source).filename().string() : opt.name;
  t.gpu = probe.probe(opt.devices.empty() ? 0 : opt.devices.front());
  if (!take_devices(opt, probe, t.gpu, sum)) return false;
  t.cs = compile_settings(opt, t.gpu, t.source);
  sum.arch = t.cs.arch;
  t.ts = tune_space(opt, text, t.source, t.cs, t.kernel, say);
  sum.space_size = static_cast<int>(t.ts.space.configs.size());
  sum.original_config = t.ts.space.original.values;
  sum.space_valid = t.ts.space.valid > 0 ? static_cast<long long>(t.ts.space.valid) - 1 : 0;
  if (t.ts.space.configs.empty()) {
    conclude(sum, TuneVerdict::no_gain, nothing_to_tune(opt, t.kernel));
    return false;
  }
  t.resumed = resume_search(opt, space_digest(t.ts.space, t.ts.harness_text.empty() ? t.ts.harness_read
                                                                                     : t.ts.harness_text));
  if (!t.resumed.note.empty()) say("[tune] " + t.kernel + ": " + t.resumed.note);
  if (t.resumed.state)
    say("[tune] " + t.kernel + ": resuming the search of " + std::to_string(t.resumed.state->builds) +
        " earlier run(s): " + std::to_string(t.resumed.state->evaluations.size()) + " configuration(s) measured");
  return true;
}

// The phases after the loop: the verdict (the earlier look's where nothing
// new is to be looked at), the KB's learning, the log, the state kept.
void conclude_run(const TuneOptions& opt, const LoopOutcome& outcome, const TuneSetup& t, EngineMeasurer& measurer,
                  const std::string& kb_path, const Say& say, PhaseClock& phases, TuneSummary& sum, RunLog& log,
                  Resumed& resumed) {
  if (!reuse_look(resumed, outcome, opt, part_of(measurer, t.ts.decl), sum))
    decide_winner(opt, outcome, t.ts.decl, measurer, t.kernel, say, phases, sum, log);
  learn_and_log(opt, kb_path, say, phases, sum, log);
  remember_search(resumed, outcome, log, opt, sum.seconds, sum, say);
}

}  // namespace

TuneSummary run_tune(const TuneOptions& opt, const std::string& self_exe, GpuProbe& probe,
                     void (*log_line)(const std::string&)) {
  const Say say = [log_line](const std::string& s) {
    if (log_line) log_line(s);
  };
  PhaseClock phases(steady_seconds, "setup");
  TuneSummary sum;
  sum.source = opt.source;
  sum.out = opt.out;
  TuneSetup t;
  if (!set_up(opt, probe, say, t, sum)) return sum;
  const std::string kb_path = !opt.kb.empty() ? opt.kb : kb::default_user_kb_path();
  const kb::KnowledgeBase knowledge = load_knowledge(kb_path, self_exe, say);

  // Scratch space and the engine.
  const WorkDir scratch("kernelblaster-tune");
  EngineTarget target = engine_target(opt, t.source, t.ts, t.cs, scratch.path());
  target.build_store = t.resumed.builds_dir();
  Toolchain tc = find_toolchain(self_exe);
  CompilePool pool;
  CuobjdumpSassHasher hasher(tc);
  EngineMeasurer measurer(tc, probe, pool, &hasher, target);
  const EvalRequest::Memcheck memcheck = winner_memcheck(tc);
  measurer.memcheck(memcheck);
  focus_groups(opt, target, t.ts, t.kernel, say, measurer, sum);
  PolicyChoice choice = choose_policy(opt.policy, log_line);
  RunLog log = start_run_log(t.kernel, t.source, t.cs, t.gpu, t.ts, choice.name);
  sum.policy = choice.name;
  LoopOptions lo = loop_options(opt, sum, pool, t.kernel, t.cs, t.gpu, start_picks(opt.start_from, t.ts.space, say));
  if (t.resumed.state) lo.earlier = t.resumed.state->evaluations;

  // The GPU work before the search (the original's profile, which decides
  // the state the policy sees) leaves the CPU pool idle: start compiling
  // what the policy will probably pick first, asked of a second instance of
  // it with the state unknown ("", not "unclassified", whose techniques
  // would crowd out a memory-bound kernel's first steps).
  std::vector<std::string> guesses;
  {
    PolicyChoice guesser = choose_policy(opt.policy, nullptr);
    guesses = speculate_builds(measurer, t.ts.space, estimates_of(knowledge, "", t.cs.arch, t.ts.space),
                               *guesser.policy, lo, speculative_build_count(pool.threads()));
  }
  lo.built_ahead = guesses;

  phases.next("reference_build");
  if (!build_original(measurer, phases, sum, ceilings_while_building(self_exe, gpu_of(opt)), say)) return sum;

  phases.next("profile");
  classify_original(tc, probe, target, measurer, knowledge, opt, t.kernel, say, sum, log, t.resumed.state);
  lo.facts.state = log.state;
  lo.facts.metrics = log.metrics;

  set_search_deadline(opt, phases.read(), sum, !memcheck.tool.empty(), measurer, t.ts.decl, t.resumed, lo);
  sum.preparation_s = phases.read().total;
  phases.next("loop");
  SearchLoop loop(t.ts.space, estimates_of(knowledge, log.state, t.cs.arch, t.ts.space), measurer, *choice.policy,
                  steady_seconds);
  const LoopOutcome outcome = loop.run(lo, progress_lines(opt, t.kernel, say));
  sum.fell_back_to_default = choice.fell_back();
  if (sum.fell_back_to_default) sum.policy_failure = choice.failed_to_load ? choice.failure : choice.guarded->failure();
  record_loop(outcome, measurer, t.ts.space, guesses, sum, log);
  conclude_run(opt, outcome, t, measurer, kb_path, say, phases, sum, log, t.resumed);
  return sum;
}

const char* tune_verdict_name(TuneVerdict v) {
  switch (v) {
    case TuneVerdict::tuned: return "tuned";
    case TuneVerdict::no_gain: return "no_gain";
    case TuneVerdict::failed: return "failed";
    case TuneVerdict::no_gpu: return "no_gpu";
    case TuneVerdict::not_measured: return "not_measured";
  }
  return "failed";
}

// How the tries ended, by status name; the machine-code twins as "duplicate".
nlohmann::json outcomes_json(const TuneSummary& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [status, n] : s.outcomes) j[status_name(status)] = n;
  if (s.duplicates > 0) j["duplicate"] = s.duplicates;
  return j;
}

std::string tune_summary_to_json(const TuneSummary& s) {
  nlohmann::json reverification = nlohmann::json::array();
  for (const DeviceCheck& c : s.reverification) {
    const CandidateResult& r = c.result;
    nlohmann::json check = {
        {"device", c.device}, {"seeds", c.seeds}, {"status", status_name(r.status)}, {"speedup", r.speedup}};
    if (r.flushed_speedup > 0) check["flushed_speedup"] = r.flushed_speedup;
    if (r.back_to_back_speedup > 0) check["back_to_back_speedup"] = r.back_to_back_speedup;
    for (const SizeSpeedup& z : r.sizes)
      check["sizes"].push_back({{"size", z.size}, {"speedup", z.speedup}, {"validation_only", z.validation_only}});
    reverification.push_back(check);
  }
  nlohmann::json j = {
      {"status", tune_verdict_name(s.status)},  {"source", s.source},
      {"out", s.exit_code == 0 ? s.out : ""},   {"speedup", s.speedup},
      {"search_speedup", s.search_speedup},     {"config", s.config}, {"original_config", s.original_config},
      {"flags", s.flags},                       {"evaluations", s.evaluations},
      {"outcomes", outcomes_json(s)}, {"evaluations_now", s.evaluations_now},
      {"builds_searched", s.builds_searched}, {"continues", s.continues}, {"preparation_s", s.preparation_s},
      {"harness_failed", s.harness_failed},
      {"duplicates", s.duplicates},             {"space_size", s.space_size}, {"space_valid", s.space_valid},
      {"seconds", s.seconds},                   {"phases_s", s.phases_s},
      {"first_measurement_s", s.first_measurement_s}, {"builds", s.builds}, {"search_stop", s.search_stop},
      {"speculative_builds", s.speculative_builds}, {"speculative_builds_used", s.speculative_builds_used},
      {"reverification", reverification},       {"reference_median_us", s.reference_median_us},
      {"best_median_us", s.best_median_us},     {"gpu", s.gpu},
      {"arch", s.arch},                         {"devices", s.devices},
      {"state", s.state},                       {"policy", s.policy},
      {"fell_back_to_default", s.fell_back_to_default}};
  if (!s.policy_failure.empty()) j["policy_failure"] = s.policy_failure;
  if (s.focused_groups > 0) {
    nlohmann::json groups = nlohmann::json::array();
    for (const GroupResult& g : s.launcher_groups)
      groups.push_back({{"group", g.group}, {"launchers", g.launchers}, {"id", g.id},
                        {"search_speedup", g.search_speedup}, {"status", status_name(g.look.status)},
                        {"speedup", g.look.speedup}, {"kept", g.kept}, {"refused_looks", g.refused}});
    j["focused_groups"] = s.focused_groups;
    j["launcher_groups"] = groups;
    if (s.whole_speedup > 0) j["whole_speedup"] = s.whole_speedup;
    if (!s.per_launcher.empty()) j["per_launcher"] = s.per_launcher;
  }
  // What the winner's second look found, whether or not it was judged group by group.
  if (!s.memcheck.empty()) j["memcheck"] = s.memcheck;
  if (!s.slower_at_a_size.empty()) j["slower_at_a_size"] = s.slower_at_a_size;
  if (!s.other_sizes.empty()) j["other_sizes"] = s.other_sizes;
  if (!s.launch_paced.empty()) j["launch_paced"] = s.launch_paced;
  if (!s.shape_guard.empty()) j["shape_guard"] = s.shape_guard;
  if (!s.edge_check.empty()) j["edge_check"] = s.edge_check;
  if (!s.look_phases_s.empty()) j["look_phases_s"] = s.look_phases_s;
  if (!s.kernel_speedups.empty()) j["kernel_speedups"] = s.kernel_speedups;
  if (!s.reason.empty()) j["reason"] = s.reason;
  return j.dump(2);
}

}  // namespace kernelblaster::tuner
