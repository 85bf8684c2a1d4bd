#include "optimize/loop.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/text.h"
#include "kb/classifier.h"
#include "kb/kb_store.h"
#include "rewrite/code_blocks.h"
#include "rewrite/lowering_prompt.h"
#include "rewrite/static_check.h"

namespace kernelblaster::optimize {
namespace {

using Clock = std::chrono::steady_clock;

std::string attempt_tag(int trajectory, int step, int attempt) {
  return "t" + std::to_string(trajectory) + "-s" + std::to_string(step) + "-a" + std::to_string(attempt);
}

// The failure name a fix prompt shows the model.
std::string failure_name(const Attempt& a) { return outcome_name(a.end, a.status); }

// One line per earlier step of the trajectory, for the lowering prompt.
std::string tried_line(const Step& s) {
  std::string line = s.technique + ": ";
  if (s.verified)
    line += "verified, " + fixed_point(s.speedup_vs_base, 2) + "x over its base" + (s.accepted ? " (kept)" : " (not kept)");
  else if (!s.attempts.empty())
    line += "failed (" + failure_name(s.attempts.back()) + ")";
  else
    line += "not attempted";
  return line;
}

// Why a base has no state, for its step's line: "" when it has one.
std::string unclassified_why(const kb::Classification& cls, const std::map<std::string, double>& metrics) {
  if (!cls.matched.empty()) return "";
  if (metrics.empty()) return " (no counters were read for it: its profile failed or was not taken)";
  return cls.missing.empty() ? " (no rule of the KB matches its counters)"
                             : " (its profile lacks " + joined(cls.missing) + ")";
}

}  // namespace

bool ends_the_run(llm::Outcome outcome) {
  switch (outcome) {
    case llm::Outcome::cap_reached:
    case llm::Outcome::quota:
    case llm::Outcome::http_refused_key:
    case llm::Outcome::not_configured:
    case llm::Outcome::replay_miss:
      return true;
    default:
      return false;
  }
}

// What a step starts from.
struct Loop::Base {
  std::string source;
  std::string definition;  // a kernel unit's definition in this base
  std::string tag = "original";
  double speedup = 1.0;  // over the original
  double median_us = 0;
  std::map<std::string, double> metrics;
  std::string technique;  // the technique that made it; empty for the original
};

Loop::Loop(KernelTarget target, LoopOptions options, kb::KnowledgeBase& kb, policy::Policy& policy,
           llm::Client& client, CandidateJudge& judge, std::function<void(const std::string&)> log)
    : m_target(std::move(target)),
      m_options(options),
      m_kb(kb),
      m_policy(policy),
      m_client(client),
      m_judge(judge),
      m_log(std::move(log)) {}

double bound_share(const std::map<std::string, double>& metrics) {
  auto it = metrics.find("roofline_bound_pct");
  return it == metrics.end() || !(it->second > 0) ? 0.0 : it->second / 100.0;
}

std::string Loop::near_bound(const std::map<std::string, double>& metrics) const {
  const double share = bound_share(metrics);
  if (m_options.bound_stop <= 0 || share < m_options.bound_stop) return "";
  return "runs at " + fixed_point(100 * share, 0) + "% of its speed of light (the GPU's roof at its arithmetic "
         "intensity); the loop stops at " + fixed_point(100 * m_options.bound_stop, 0) + "%";
}

void Loop::say(const std::string& line) const {
  std::lock_guard<std::mutex> lock(m_log_mutex);
  if (m_log) m_log("[optimize] " + m_target.kernel + ": " + line);
}

policy::Context Loop::context(const Base& base, const std::string& state, const std::vector<Step>& earlier,
                              int trajectory, int index) const {
  policy::Context ctx;
  ctx.kernel = m_target.kernel;
  ctx.state = state;
  ctx.arch = m_target.arch;
  ctx.gpu = m_target.gpu;
  ctx.metrics = base.metrics;
  ctx.best_speedup = base.speedup;
  ctx.evaluations_left = m_options.steps - index;
  ctx.seed = m_options.seed * 1000003ULL + static_cast<std::uint64_t>(trajectory) * 1009ULL + static_cast<std::uint64_t>(index);
  std::set<std::string> tried;
  for (const Step& s : earlier) {
    if (s.trajectory != trajectory) continue;
    tried.insert(s.technique);
    policy::HistoryEntry h;
    h.action_id = s.technique;
    h.technique = s.technique;
    if (s.verified) {
      h.end = AttemptEnd::verified;
      h.status = Status::ok;
    } else if (s.attempts.empty()) {
      h.end = AttemptEnd::not_attempted;
    } else {
      h.end = s.attempts.back().end;
      h.status = s.attempts.back().status;
    }
    h.speedup = s.verified ? s.base_speedup * s.speedup_vs_base : 0;
    h.accepted = s.accepted;
    ctx.history.push_back(h);
  }
  for (const kb::Technique& t : m_kb.techniques) {
    if (tried.count(t.id)) continue;
    policy::Action a;
    a.id = t.id;
    a.technique = t.id;
    auto it = m_kb.stats.find(kb::StatsKey{state, t.id, m_target.arch, ""});
    if (it != m_kb.stats.end()) {
      const kb::Stats& s = it->second;
      a.kb = {s.tries, s.successes, s.measured ? s.mean : 1.0, s.predicted, s.confidence, s.tries - s.measured};
    }
    ctx.actions.push_back(std::move(a));
  }
  return ctx;
}

llm::Result Loop::ask(const llm::Request& request, double* seconds) {
  auto t0 = Clock::now();
  llm::Result res = m_client.ask(m_target.kernel, request);
  *seconds = seconds_since(t0);
  std::lock_guard<std::mutex> lock(m_mutex);
  ++m_result.llm_requests;
  m_result.input_tokens += res.reply.usage.input;
  m_result.output_tokens += res.reply.usage.output;
  m_result.llm_cost_usd += res.cost_usd;
  return res;
}

llm::Result Loop::exchange(Exchange& x) {
  llm::Result res = ask(x.request, &x.llm_s);
  x.llm_outcome = res.outcome;
  x.reply = res.reply.text;
  x.input_tokens = res.reply.usage.input;
  x.output_tokens = res.reply.usage.output;
  x.cost_usd = res.cost_usd;
  x.from_cache = res.from_cache;
  return res;
}

Attempt Loop::attempt(const std::string& tag, int number, const llm::Request& request) {
  Attempt a;
  a.number = number;
  a.tag = tag;
  a.request = request;
  llm::Result res = exchange(a);
  if (res.outcome == llm::Outcome::truncated) {
    a.end = AttemptEnd::no_code;
    a.detail = "the reply was cut off at the token limit before its code ended";
    return a;
  }
  if (!res.ok()) {
    a.end = AttemptEnd::llm_failed;
    a.detail = std::string(llm::outcome_name(res.outcome)) + ": " + res.detail;
    return a;
  }
  const bool unit = m_target.unit.active();
  rewrite::Extraction ex =
      rewrite::extract_candidate(res.reply.text, unit ? m_target.unit.definition.name : m_target.launcher);
  if (ex.code.empty()) {
    a.end = AttemptEnd::no_code;
    a.detail = ex.why;
    return a;
  }
  a.code = ex.code;
  if (unit) {
    a.definition = ex.code;
    a.code = unit_source(ex.code, &a.detail);
    if (a.code.empty()) {
      a.end = AttemptEnd::no_code;
      return a;
    }
  }
  std::vector<rewrite::Finding> findings = rewrite::check_candidate(a.code, unit ? m_unit_original : m_target.source);
  if (!findings.empty()) {
    a.end = AttemptEnd::static_check;
    a.detail = rewrite::findings_line(findings);
    return a;
  }
  // One judgement at a time: the engine's builds and GPU runs are not shared
  // between trajectories (the GPU lock serializes the runs anyway).
  Judgement v;
  {
    std::lock_guard<std::mutex> lock(m_judge_mutex);
    auto t1 = Clock::now();
    v = m_judge.judge(a.code, tag);
    a.judge_s = seconds_since(t1);
  }
  a.status = v.status;
  if (v.verified()) {
    a.end = AttemptEnd::verified;
    a.speedup = v.speedup;
    a.median_us = v.median_us;
    a.metrics = v.metrics;
    a.detail = fixed_point(v.speedup, 3) + "x over the original";
  } else {
    a.end = AttemptEnd::rejected;
    a.detail = v.detail;
    if (v.status == Status::compile_failed) a.feedback = v.compiler_output;
  }
  return a;
}

Step Loop::step(int trajectory, int index, const Base& base, const std::vector<Step>& earlier, bool* stop_run) {
  auto t0 = Clock::now();
  double outside = 0;  // seconds spent in the LLM and the judge
  Step st;
  st.trajectory = trajectory;
  st.kernel = m_target.unit.definition.name;
  st.index = index;
  st.base_speedup = base.speedup;
  st.base_bound_share = bound_share(base.metrics);
  kb::Classification cls = kb::classify(m_kb, base.metrics);
  st.state = cls.state;
  policy::Context ctx = context(base, st.state, earlier, trajectory, index);
  if (ctx.actions.empty()) return st;  // every technique was tried in this trajectory
  std::vector<std::string> order;
  {
    std::lock_guard<std::mutex> lock(m_policy_mutex);
    order = m_policy.select(ctx);
  }
  st.technique = order.empty() ? ctx.actions.front().id : order.front();
  st.ranking = order.empty() ? std::vector<std::string>{st.technique} : order;
  auto stats_it = m_kb.stats.find(kb::StatsKey{st.state, st.technique, m_target.arch, ""});
  if (stats_it != m_kb.stats.end()) st.predicted = stats_it->second.predicted;
  say("trajectory " + std::to_string(trajectory) + " step " + std::to_string(index) + ": state " + st.state +
      unclassified_why(cls, base.metrics) + ", technique " + st.technique);

  const rewrite::LoweringInput in = lowering_input(st, base, earlier);
  const llm::Request lowering = rewrite::lowering_request(in);
  for (int n = 0; n <= m_options.fix_attempts; ++n) {
    llm::Request request = lowering;
    if (n > 0) {
      const Attempt& last = st.attempts.back();
      rewrite::FixInput fix;
      fix.code = !last.definition.empty() ? last.definition : last.code.empty() ? last.reply : last.code;
      fix.failure = failure_name(last);
      fix.detail = (last.feedback.empty() ? last.detail : last.feedback).substr(0, rewrite::kMaxFeedbackChars);
      fix.attempt = n;
      request = rewrite::fix_request(in, fix);
    }
    // A later kernel's round has tags of its own ("k1-t0-s0-a0"): its
    // prompts and candidates do not overwrite the first kernel's.
    const std::string round = m_round > 0 ? "k" + std::to_string(m_round) + "-" : "";
    Attempt a = attempt(round + attempt_tag(trajectory, index, n), n, request);
    outside += a.llm_s + a.judge_s;
    say("  " + a.tag + ": " + attempt_end_name(a.end) +
        (a.end == AttemptEnd::rejected ? std::string(" ") + status_name(a.status) : std::string()) + " — " + a.detail.substr(0, 200));
    const AttemptEnd end = a.end;
    const llm::Outcome outcome = a.llm_outcome;
    st.attempts.push_back(std::move(a));
    if (end == AttemptEnd::verified) break;
    if (end == AttemptEnd::llm_failed) {
      // The HTTP layer already retried: a failed request is not worth a fix prompt.
      if (ends_the_run(outcome)) {
        *stop_run = true;
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_stop.kind == RunStop::Kind::done) m_stop = {RunStop::Kind::llm_failed, st.attempts.back().detail};
      }
      break;
    }
  }

  st.verified = st.attempts.back().end == AttemptEnd::verified;
  settle(st, base, ctx);
  if (st.verified && (st.accepted || st.attempts.back().speedup >= 1.0 + m_options.min_gain)) {
    const double judged_s = st.attempts.back().judge_s;
    look_again(st, base, ctx);
    outside += st.attempts.back().judge_s - judged_s;
  }
  st.loop_s = std::max(0.0, seconds_since(t0) - outside);
  return st;
}

rewrite::LoweringInput Loop::lowering_input(const Step& st, const Base& base, const std::vector<Step>& earlier) const {
  rewrite::LoweringInput in;
  static_cast<KernelTarget&>(in) = m_target;
  in.source = base.source;
  in.definition = base.definition;
  if (const kb::State* s = m_kb.find_state(st.state)) in.state = *s;
  else in.state.id = st.state;
  if (const kb::Technique* technique = m_kb.find_technique(st.technique)) in.technique = *technique;
  auto stats_it = m_kb.stats.find(kb::StatsKey{st.state, st.technique, m_target.arch, ""});
  if (stats_it != m_kb.stats.end()) in.stats = stats_it->second;
  in.metrics = base.metrics;
  in.base_median_us = base.median_us;
  for (const Step& s : earlier)
    if (s.trajectory == st.trajectory) in.tried.push_back(tried_line(s));
  return in;
}

void Loop::settle(Step& st, const Base& base, const policy::Context& ctx) {
  const Attempt& last = st.attempts.back();
  st.accepted = false;
  st.speedup_vs_base = 0;
  if (st.verified) {
    st.speedup_vs_base = base.speedup > 0 ? last.speedup / base.speedup : 0;
    st.reward = st.speedup_vs_base > 0 ? std::log(st.speedup_vs_base) : kFailureReward;
  } else {
    st.reward = kFailureReward;
  }
  st.advantage = st.reward - std::log(st.predicted > 0 ? st.predicted : 1.0);
  if (!st.verified) return;
  policy::HistoryEntry h;
  h.action_id = st.technique;
  h.technique = st.technique;
  h.end = AttemptEnd::verified;
  h.status = Status::ok;
  h.speedup = last.speedup;
  std::optional<bool> keep;
  {
    std::lock_guard<std::mutex> lock(m_policy_mutex);
    keep = m_policy.accept(ctx, h);
  }
  st.accepted = keep ? *keep : st.speedup_vs_base >= 1.0 + m_options.min_gain;
}

void Loop::look_again(Step& st, const Base& base, const policy::Context& ctx) {
  Attempt& a = st.attempts.back();
  {
    std::lock_guard<std::mutex> lock(m_judge_mutex);
    auto t = Clock::now();
    st.second_look = m_judge.confirm(a.code, a.tag + "-confirm", m_options.confirm_seeds);
    a.judge_s += seconds_since(t);
  }
  st.looked_again = true;
  const std::string seeds = std::to_string(m_options.confirm_seeds) + " fresh seeds";
  if (!st.second_look.verified()) {
    // Found out: nothing builds on it and nothing learns its speed.
    a.detail = std::string(status_name(st.second_look.status)) + " when judged again with " + seeds + " (" +
               fixed_point(a.speedup, 3) + "x the first time): " + st.second_look.detail;
    a.end = AttemptEnd::rejected;
    a.status = st.second_look.status;
    a.speedup = a.median_us = 0;
    a.metrics.clear();
    st.verified = false;
    settle(st, base, ctx);
    say("  " + a.tag + ": rejected on a second look — " + a.detail.substr(0, 200));
    return;
  }
  if (st.second_look.speedup < a.speedup) {  // the lower of the two looks is what was verified
    a.speedup = st.second_look.speedup;
    a.median_us = st.second_look.median_us;
    a.detail = fixed_point(a.speedup, 3) + "x over the original (the lower of two looks, the second with " + seeds + ")";
    settle(st, base, ctx);
  }
}

void Loop::review(bool* stop_run) {
  Review rv;
  rv.tag = "review-" + std::to_string(m_result.reviews.size() + 1);
  rv.steps_seen = static_cast<int>(m_result.steps.size());
  const std::size_t first = m_result.steps.size() - std::min<std::size_t>(m_result.steps.size(), m_options.review_every);
  std::vector<Step> recent(m_result.steps.begin() + static_cast<std::ptrdiff_t>(first), m_result.steps.end());
  rv.request = knowledge_update_request(m_kb, recent, m_target.arch, m_target.gpu);
  llm::Result res = exchange(rv);
  if (!res.ok()) {
    rv.detail = std::string(llm::outcome_name(res.outcome)) + ": " + res.detail;
    if (ends_the_run(res.outcome)) {
      *stop_run = true;
      m_stop = {RunStop::Kind::llm_failed, rv.detail};
    }
  } else {
    try {
      KnowledgeUpdate u = parse_knowledge_update(res.reply.text, m_kb);
      // The KB with the edits must still be a valid KB file before it is believed.
      kb::KnowledgeBase edited = m_kb;
      apply_knowledge_update(edited, u, m_target.arch);
      kb::parse_kb(kb::serialize_kb(edited), "the reviewed KB");
      m_kb = std::move(edited);
      rv.applied = true;
      rv.detail = std::to_string(u.notes.size()) + " notes, " + std::to_string(u.predictions.size()) +
                  " prediction factors, " + std::to_string(u.deprecations.size()) + " deprecations, " +
                  std::to_string(u.new_techniques.size()) + " new techniques, " + std::to_string(u.new_states.size()) +
                  " new states";
      rv.update = std::move(u);
    } catch (const std::exception& x) {
      rv.detail = std::string("proposal refused: ") + x.what();
    }
  }
  say(rv.tag + ": " + (rv.applied ? "applied " : "") + rv.detail.substr(0, 300));
  m_result.reviews.push_back(std::move(rv));
}

// Step `index` of every trajectory in `active` at once against the same KB
// (a thread each; one alone runs here); each result with whether its policy
// asked the run to stop.
std::vector<Loop::RoundResult> Loop::run_round(const std::vector<int>& active, int index, const std::vector<Base>& bases,
                                               int group_start) {
  std::vector<RoundResult> results(active.size());
  auto run_one = [&](std::size_t i) {
    bool stop = false;
    results[i].step = step(active[i], index, bases[static_cast<std::size_t>(active[i] - group_start)], m_result.steps, &stop);
    results[i].stop = stop;
  };
  if (active.size() == 1) {
    run_one(0);
    return results;
  }
  std::vector<std::exception_ptr> errors(active.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < active.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        run_one(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (std::thread& th : threads) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return results;
}

// What a finished step teaches the KB, by the rule both loops share
// (teaches_kb: a request that never reached the model, or an environment's
// failure, says nothing about the technique); the step joins the run's.
void Loop::record_step(Step st, const Base& base) {
  kb::Outcome o;
  o.state = st.state;
  o.technique = st.technique;
  o.arch = m_target.arch;
  o.previous_technique = base.technique;
  o.verified = st.verified;
  o.speedup = st.speedup_vs_base;
  const Attempt& last = st.attempts.back();
  o.note = st.verified ? fixed_point(st.speedup_vs_base, 3) + "x over its base on " + m_target.gpu + " (" +
                             m_target.kernel + ")"
                       : std::string("failed: ") + failure_name(last) + ": " + last.detail.substr(0, 200);
  if (teaches_kb(last.end, last.status)) {
    kb::record(m_kb, o);
    m_result.outcomes.push_back(o);
  }
  m_result.steps.push_back(std::move(st));
}

// An accepted step's kernel becomes its trajectory's base.
void Loop::advance_base(const Step& done, Base& base) {
  if (!done.accepted) return;
  base.source = done.attempts.back().code;
  base.definition = done.attempts.back().definition;
  base.tag = done.attempts.back().tag;
  base.speedup = done.attempts.back().speedup;
  base.median_us = done.attempts.back().median_us;
  base.technique = done.technique;
  // The next state is read from the new base's own profile; a judge
  // that took none leaves the base's old one.
  if (!done.attempts.back().metrics.empty()) base.metrics = done.attempts.back().metrics;
}

// The fastest verified step, kept when it beats the original by min_gain
// and held on its second look; the optional second opinion on it.
void Loop::keep_winner(std::size_t best_step) {
  const Step& winner = m_result.steps[best_step];
  const Attempt* best = &winner.attempts.back();
  m_result.search_speedup = best->speedup;
  if (winner.looked_again) m_result.confirmation = winner.second_look;
  // Every step faster than the original was looked at again in its step:
  // a winner here held on a second look.
  if (best->speedup < 1.0 + m_options.min_gain || !winner.looked_again) return;
  m_result.improved = true;
  m_result.best_source = best->code;
  m_result.best_tag = best->tag;
  say("kept " + best->tag + ": " + fixed_point(best->speedup, 3) + "x over the original (held on a second look with " +
      std::to_string(m_options.confirm_seeds) + " fresh seeds)" +
      (winner.second_look.plausibility.empty() ? "" : "; plausibility: " + winner.second_look.plausibility));
  if (!m_options.second_opinion) return;
  m_result.second_opinion_request = second_opinion_request(m_target.source, best->code, m_target.launcher);
  double seconds = 0;
  llm::Result res = ask(m_result.second_opinion_request, &seconds);
  m_result.second_opinion_reply = res.reply.text;
  if (res.ok()) {
    m_result.second_opinion = read_second_opinion(res.reply.text);
  } else {
    m_result.second_opinion.opinion = Opinion::failed;
    m_result.second_opinion.reason = std::string(llm::outcome_name(res.outcome)) + ": " + res.detail;
  }
  say(std::string("second opinion (advice, the engine decided): ") + opinion_name(m_result.second_opinion.opinion) +
      " — " + m_result.second_opinion.reason);
}

std::vector<int> Loop::unit_order() {
  const std::vector<rewrite::KernelUnit>& units = m_target.units;
  if (units.empty()) return {};
  std::vector<int> order = rewrite::units_by_time(units, m_result.original.kernels_by_time);
  if (order.empty()) {
    say("the whole source is rewritten: no kernel its profile names is one the project defines");
    return {};
  }
  // One kernel, in the source itself: the whole file is the unit, launcher
  // included, as before.
  const rewrite::KernelUnit& u = units[static_cast<std::size_t>(order.front())];
  if (units.size() == 1 && u.definition.file == u.source_path) return {};
  try {
    m_unit_original = rewrite::source_with_kernels(u.source_path, u.include_dirs, u.project_root, {});
  } catch (const std::exception& e) {
    say("the whole source is rewritten: it cannot be read as one text (" + std::string(e.what()) + ")");
    return {};
  }
  return order;
}

void Loop::begin_unit(std::size_t i, std::size_t round) {
  const rewrite::KernelUnit& u = m_target.units[i];
  m_target.unit = u;
  m_round = round;
  if (round == 0) m_result.unit = u.definition;
  say("kernel " + u.definition.name + " (" + std::filesystem::path(u.definition.file).filename().string() + ":" +
      std::to_string(u.definition.line) + ")" + (round == 0 ? ", most of the original's GPU time," : ", next by GPU time,") +
      " of " + std::to_string(m_target.units.size()) + " kernels: rewritten alone, " +
      std::to_string(u.definition.text.size()) + " bytes and " + std::to_string(u.launchers.size()) +
      " launching function(s) shown instead of the whole source");
}

std::map<std::string, double> Loop::original_metrics_of(const rewrite::KernelUnit& unit) const {
  const Judgement& o = m_result.original;
  for (std::size_t k = 0; k < o.kernels_by_time.size() && k < o.kernel_metrics.size(); ++k)
    if (rewrite::profiled_kernel_name(o.kernels_by_time[k]) == unit.definition.name) return o.kernel_metrics[k];
  return o.metrics;
}

std::string Loop::unit_source(const std::string& definition, std::string* why) const {
  const rewrite::KernelUnit& u = m_target.unit;
  if (rewrite::named(rewrite::kernels_in_text(definition, "reply"), u.definition.name).empty()) {
    *why = "the reply does not define kernel " + u.definition.name + " (a __global__ definition with its body)";
    return "";
  }
  // A reply that brings the rest of the file along (other kernels of the
  // project, the functions that launch it) would define them twice.
  std::vector<std::string> extra;
  for (const rewrite::KernelDefinition& k : rewrite::kernels_in_text(definition, "reply"))
    for (const rewrite::KernelUnit& other : m_target.units)
      if (k.name != u.definition.name && other.definition.name == k.name) extra.push_back(k.name);
  for (const std::string& f : u.launchers)
    if (const std::string n = rewrite::profiled_kernel_name(f.substr(0, f.find('{')));
        !n.empty() && rewrite::defines_function(definition, n))
      extra.push_back(n);
  if (!extra.empty()) {
    *why = "the reply holds more than kernel " + u.definition.name + "'s definition (also " + joined(extra) +
           "): the rest of the project stays as written; reply with " + u.definition.name + "'s definition only";
    return "";
  }
  try {
    std::vector<rewrite::Replacement> all = m_kept;
    all.push_back({u.definition, definition});
    return rewrite::source_with_kernels(u.source_path, u.include_dirs, u.project_root, all);
  } catch (const std::exception& e) {
    *why = "the new definition of " + u.definition.name + " cannot be put in the source: " + e.what();
    return "";
  }
}

void Loop::run_trajectories(const Base& start, Best& best, bool* stop_run) {
  const int width = std::max(1, m_options.parallel);
  // Trajectories run in groups of `width`. Within a group, step s of every
  // trajectory runs at once against the same KB; the results are then
  // committed in trajectory order, so what the KB learns, and so every later
  // request, does not depend on which request finished first. A group of
  // one is the plain sequential loop.
  for (int g = 0; g < m_options.trajectories && !*stop_run; g += width) {
    const int g_end = std::min(m_options.trajectories, g + width);
    std::vector<Base> bases(static_cast<std::size_t>(g_end - g), start);
    std::vector<bool> alive(bases.size(), true);
    for (int s = 0; s < m_options.steps && !*stop_run; ++s) {
      std::vector<int> active;
      for (int t = g; t < g_end; ++t)
        if (alive[static_cast<std::size_t>(t - g)]) active.push_back(t);
      if (active.empty()) break;
      std::vector<RoundResult> results = run_round(active, s, bases, g);
      for (std::size_t i = 0; i < active.size(); ++i) {
        const int t = active[i];
        Base& base = bases[static_cast<std::size_t>(t - g)];
        if (results[i].stop) *stop_run = true;
        if (results[i].step.technique.empty()) {  // nothing left to try
          alive[static_cast<std::size_t>(t - g)] = false;
          continue;
        }
        record_step(std::move(results[i].step), base);
        const Step& done = m_result.steps.back();
        if (done.verified && (!best.have || done.attempts.back().speedup > best.speedup)) {
          best.have = true;
          best.step = m_result.steps.size() - 1;
          best.speedup = done.attempts.back().speedup;
        }
        advance_base(done, base);
        if (const std::string near = done.accepted ? near_bound(base.metrics) : ""; !near.empty()) {
          say("t" + std::to_string(t) + " ends: its base " + base.tag + " " + near);
          alive[static_cast<std::size_t>(t - g)] = false;
        }
        if (!*stop_run && m_options.review_every > 0 &&
            m_result.steps.size() % static_cast<std::size_t>(m_options.review_every) == 0)
          review(stop_run);
        policy::Context after = context(base, done.state, m_result.steps, t, s + 1);
        std::optional<bool> stop;
        {
          std::lock_guard<std::mutex> lock(m_policy_mutex);
          stop = m_policy.stop(after);
        }
        if (stop && *stop) alive[static_cast<std::size_t>(t - g)] = false;
      }
    }
  }
}

RunResult Loop::run() {
  m_result = RunResult{};
  m_stop = {};
  m_round = 0;
  m_result.original = m_judge.judge_original();
  m_result.best_source = m_target.source;
  if (!m_result.original.verified()) {
    m_result.stop = {RunStop::Kind::original_failed,
                     std::string(status_name(m_result.original.status)) + ": " + m_result.original.detail};
    say("cannot optimize: " + m_result.stop.text());
    return m_result;
  }
  const std::vector<int> order = unit_order();
  if (!order.empty()) begin_unit(static_cast<std::size_t>(order.front()), 0);
  // The whole source is rewritten around its one launcher; a harness of
  // several launchers names none, so only a kernel alone can be rewritten.
  if (!m_target.unit.active() && m_target.launcher.empty()) {
    m_result.stop = {RunStop::Kind::no_unit, "the harness calls several launchers and no kernel can be rewritten alone"
                                             " (name one with --launcher to rewrite the whole source)"};
    say("not optimized: " + m_result.stop.text());
    return m_result;
  }
  Base original;
  original.source = m_target.unit.active() ? m_unit_original : m_target.source;
  original.definition = m_target.unit.definition.text;
  original.median_us = m_result.original.median_us;
  original.metrics = original_metrics_of(m_target.unit);  // the kernel's own; the dominant one's for the whole source
  if (const std::string near = near_bound(original.metrics); !near.empty()) {
    m_result.stop = {RunStop::Kind::near_bound, "the original " + near};
    say("not optimized: " + m_result.stop.text());
    return m_result;
  }
  Best best;
  bool stop_run = false;
  run_trajectories(original, best, &stop_run);
  // Further kernels, one after another, each from what the rounds before kept.
  Base kept = original;
  const std::size_t rounds = std::min(order.size(), static_cast<std::size_t>(std::max(1, m_options.kernels)));
  std::optional<std::size_t> carried;  // the step whose kernel the rounds after carry
  for (std::size_t k = 1; k < rounds && !stop_run; ++k) {
    const Step* held = best.have && best.step != carried ? &m_result.steps[best.step] : nullptr;
    if (held && held->looked_again && best.speedup >= kept.speedup * (1.0 + m_options.min_gain)) {
      const Attempt& a = held->attempts.back();
      for (const rewrite::KernelUnit& u : m_target.units)
        if (u.definition.name == held->kernel) {
          m_kept.push_back({u.definition, a.definition});
          break;
        }
      carried = best.step;
      kept.source = a.code;
      kept.tag = a.tag;
      kept.speedup = a.speedup;
      kept.median_us = a.median_us;
      kept.technique = held->technique;
    }
    begin_unit(static_cast<std::size_t>(order[k]), k);
    kept.definition = m_target.unit.definition.text;
    kept.metrics = original_metrics_of(m_target.unit);
    if (const std::string near = near_bound(kept.metrics); !near.empty()) {
      say("kernel " + m_target.unit.definition.name + " not rewritten: it " + near);
      continue;
    }
    run_trajectories(kept, best, &stop_run);
  }
  if (best.have) keep_winner(best.step);
  m_result.stop = m_stop;
  return m_result;
}

std::string RunStop::text() const {
  switch (kind) {
    case Kind::done: return "done";
    case Kind::llm_failed: return "llm " + detail;
    case Kind::original_failed: return "original " + detail;
    case Kind::near_bound: return "near bound: " + detail;
    case Kind::no_unit: return "nothing to rewrite: " + detail;
  }
  return "done";
}

}  // namespace kernelblaster::optimize
