#include "tuner/resume.h"

#include <algorithm>
#include <filesystem>

#include "common/file_util.h"
#include "common/text.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {

namespace {

LookVerdict verdict_of(const TuneSummary& sum, std::string text) {
  LookVerdict v;
  v.exit_code = sum.exit_code;
  v.status = tune_verdict_name(sum.status);
  v.reason = sum.reason;
  v.speedup = sum.speedup;
  v.search_speedup = sum.search_speedup;
  v.whole_speedup = sum.whole_speedup;
  v.reference_median_us = sum.reference_median_us;
  v.best_median_us = sum.best_median_us;
  v.config = sum.config;
  v.flags = sum.flags;
  v.kernel_speedups = sum.kernel_speedups;
  v.memcheck = sum.memcheck;
  v.slower_at_a_size = sum.slower_at_a_size;
  v.other_sizes = sum.other_sizes;
  v.launch_paced = sum.launch_paced;
  v.shape_guard = sum.shape_guard;
  v.edge_check = sum.edge_check;
  v.per_launcher = sum.per_launcher;
  v.text = std::move(text);
  return v;
}

std::optional<TuneVerdict> verdict_named(const std::string& name) {
  for (TuneVerdict v : {TuneVerdict::tuned, TuneVerdict::no_gain, TuneVerdict::failed, TuneVerdict::no_gpu,
                        TuneVerdict::not_measured})
    if (name == tune_verdict_name(v)) return v;
  return std::nullopt;
}

void apply_verdict(const LookVerdict& v, TuneVerdict status, TuneSummary& sum) {
  sum.exit_code = v.exit_code;
  sum.status = status;
  sum.reason = v.reason;
  sum.speedup = v.speedup;
  sum.search_speedup = v.search_speedup;
  sum.whole_speedup = v.whole_speedup;
  sum.reference_median_us = v.reference_median_us;
  sum.best_median_us = v.best_median_us;
  sum.config = v.config;
  sum.flags = v.flags;
  sum.kernel_speedups = v.kernel_speedups;
  sum.memcheck = v.memcheck;
  sum.slower_at_a_size = v.slower_at_a_size;
  sum.other_sizes = v.other_sizes;
  sum.launch_paced = v.launch_paced;
  sum.shape_guard = v.shape_guard;
  sum.edge_check = v.edge_check;
  sum.per_launcher = v.per_launcher;
}

// look_signature() under the threshold it was taken with: a verdict taken
// at another --min-speedup is no verdict for this run.
std::string signature(const std::vector<EvaluationRecord>& evaluations, double min_speedup) {
  const std::string ids = look_signature(evaluations, min_speedup);
  return ids.empty() ? "" : general_number(min_speedup) + ":" + ids;
}

// Whether the search needs no further run: its policy stopped every part,
// the space is exhausted, the evaluation cap reached, the original cannot
// be judged, or it has searched as many builds as any may.
bool search_over(SearchStop stop, int builds, TuneVerdict verdict) {
  return stop == SearchStop::space_exhausted || stop == SearchStop::policy || stop == SearchStop::evaluation_cap ||
         stop == SearchStop::original_failed || builds >= kMaxBuildsSearched || verdict == TuneVerdict::not_measured;
}

}  // namespace

std::string Resumed::builds_dir() const { return dir.empty() ? "" : (fs::path(dir) / "builds").string(); }

Resumed resume_search(const TuneOptions& opt, const std::string& space) {
  Resumed r;
  r.dir = opt.state_dir.empty() ? "" : fs::absolute(opt.state_dir).lexically_normal().string();
  r.space = space;
  if (r.dir.empty() || opt.fresh_search) return r;
  std::string why;
  r.state = read_search_state(r.dir, &why);
  if (!why.empty()) r.note = "the search's earlier state is not used (" + why + "): starting afresh";
  if (r.state && r.state->space != space) {
    r.note = "the space or the harness changed since the search's earlier runs: starting afresh";
    r.state.reset();
  }
  return r;
}

double looked_up_to(const Resumed& r, double min_speedup) {
  if (!r.state || r.state->look_of.empty() || r.state->look_of != signature(r.state->evaluations, min_speedup))
    return 0;
  double best = 0;
  for (const EvaluationRecord& e : r.state->evaluations)
    if (e.accepted && e.keepable()) best = std::max(best, e.speedup);
  return best;
}

bool reuse_look(const Resumed& r, const LoopOutcome& outcome, const TuneOptions& opt, TuneSummary& sum) {
  if (!r.state || r.state->look_of.empty() || r.state->look_of != signature(outcome.evaluations, opt.min_speedup))
    return false;
  const LookVerdict& v = r.state->look;
  const std::optional<TuneVerdict> status = verdict_named(v.status);
  if (!status || (v.exit_code == 0 && !opt.out.empty() && v.text.empty())) return false;
  apply_verdict(v, *status, sum);
  if (v.exit_code == 0 && !opt.out.empty()) write_file_atomic(opt.out, v.text);
  return true;
}

void remember_search(Resumed& r, const LoopOutcome& outcome, const RunLog& log, const TuneOptions& opt,
                     double seconds, TuneSummary& sum, const std::function<void(const std::string&)>& say) {
  if (r.dir.empty()) return;
  SearchState s = r.state ? *r.state : SearchState{};
  s.space = r.space;
  ++s.builds;
  s.seconds += seconds;
  if (outcome.pace_s > 0) s.pace_s = outcome.pace_s;
  if (!log.metrics.empty()) {
    s.metrics = log.metrics;
    s.state = log.state;
  }
  s.evaluations = outcome.evaluations;
  s.stop = search_stop_name(outcome.stop);
  s.over = search_over(outcome.stop, s.builds, sum.status);
  s.look_of = signature(outcome.evaluations, opt.min_speedup);
  std::string text;
  if (sum.exit_code == 0 && !opt.out.empty()) read_file_if_present(opt.out, &text);
  s.look = verdict_of(sum, text);
  sum.builds_searched = s.builds;
  sum.continues = !s.over;
  try {
    write_search_state(r.dir, s);
    r.state = std::move(s);
  } catch (const std::exception& e) {
    say(std::string("[tune] the search's state is not kept (") + e.what() + "): the next run starts afresh");
    sum.continues = false;
  }
}

}  // namespace kernelblaster::tuner
