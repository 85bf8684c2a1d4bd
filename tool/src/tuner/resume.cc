#include "tuner/resume.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/file_util.h"
#include "common/text.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {

namespace {

// The fields a look's verdict and a summary share, from one to the other
// (a LookVerdict's status is its name, a summary's the enum; the text is
// the verdict's own).
template <class To, class From>
void copy_verdict_fields(To& to, const From& from) {
  to.exit_code = from.exit_code;
  to.reason = from.reason;
  to.speedup = from.speedup;
  to.search_speedup = from.search_speedup;
  to.whole_speedup = from.whole_speedup;
  to.reference_median_us = from.reference_median_us;
  to.best_median_us = from.best_median_us;
  to.config = from.config;
  to.flags = from.flags;
  to.kernel_speedups = from.kernel_speedups;
  to.memcheck = from.memcheck;
  to.slower_at_a_size = from.slower_at_a_size;
  to.other_sizes = from.other_sizes;
  to.launch_paced = from.launch_paced;
  to.shape_guard = from.shape_guard;
  to.edge_check = from.edge_check;
  to.per_launcher = from.per_launcher;
}

LookVerdict verdict_of(const TuneSummary& sum, std::string text) {
  LookVerdict v;
  copy_verdict_fields(v, sum);
  v.status = tune_verdict_name(sum.status);
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
  copy_verdict_fields(sum, v);
  sum.status = status;
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

bool look_stands(const Resumed& r, const std::vector<EvaluationRecord>& evaluations, double min_speedup,
                 const PartOf& part_of) {
  if (!r.state || r.state->look_of.empty()) return false;
  if (r.state->look_of == signature(evaluations, min_speedup)) return true;
  const std::string prefix = general_number(min_speedup) + ":";
  if (r.state->look.exit_code != 0 || r.state->look_of.rfind(prefix, 0) != 0) return false;
  std::vector<std::string> looked;  // look_signature(): ids joined by '|'
  std::istringstream ids(r.state->look_of.substr(prefix.size()));
  for (std::string id; std::getline(ids, id, '|');) looked.push_back(id);
  const auto was_looked_at = [&](const std::string& id) {
    return std::find(looked.begin(), looked.end(), id) != looked.end();
  };
  std::map<std::uint64_t, double> fastest;  // per part, of the evaluations the look concluded on
  for (const EvaluationRecord& e : evaluations)
    if (was_looked_at(e.id)) {
      double& f = fastest[part_of(e)];
      f = std::max(f, e.speedup);
    }
  for (const EvaluationRecord& e : evaluations) {
    if (!e.accepted || !e.keepable() || e.speedup < min_speedup || was_looked_at(e.id)) continue;
    const auto it = fastest.find(part_of(e));
    if (it == fastest.end() || e.speedup >= it->second * (1 + kLookMargin)) return false;
  }
  return true;
}

bool reuse_look(Resumed& r, const LoopOutcome& outcome, const TuneOptions& opt, const PartOf& part_of,
                TuneSummary& sum) {
  if (!look_stands(r, outcome.evaluations, opt.min_speedup, part_of)) return false;
  const LookVerdict& v = r.state->look;
  const std::optional<TuneVerdict> status = verdict_named(v.status);
  if (!status || (v.exit_code == 0 && !opt.out.empty() && v.text.empty())) return false;
  apply_verdict(v, *status, sum);
  if (v.exit_code == 0 && !opt.out.empty()) write_file_atomic(opt.out, v.text);
  r.look_reused = true;
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
  if (!r.look_reused) {  // a reused look stays the one it was, on what it concluded
    s.look_of = signature(outcome.evaluations, opt.min_speedup);
    std::string text;
    if (sum.exit_code == 0 && !opt.out.empty()) read_file_if_present(opt.out, &text);
    s.look = verdict_of(sum, text);
  }
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
