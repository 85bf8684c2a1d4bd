#include "tuner/replay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "tuner/kb_bridge.h"
#include "tuner/speculation.h"

namespace kernelblaster::tuner {

ReplayMeasurer::ReplayMeasurer(const RunLog& log, const ReplayConditions& conditions)
    : m_original_hash(log.original_sass_hash), m_conditions(conditions), m_draws(conditions.seed) {
  for (const EvaluationRecord& r : log.evaluations) m_recorded.emplace(r.id, r);
  if (conditions.builders > 0) m_builds = std::make_unique<SimulatedBuilds>(conditions.builders, conditions.build_s);
}

void ReplayMeasurer::prepare(const Configuration& config) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_builds && !config.is_default()) m_builds->ask(config.id, m_now);
}

bool ReplayMeasurer::ready(const Configuration& config) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return !m_builds || config.is_default() || m_builds->built_by(config.id, m_now);
}

double ReplayMeasurer::build_elapsed_s(const Configuration& config) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_builds && !config.is_default() ? m_builds->elapsed(config.id, m_now) : 0.0;
}

// The hash is known once the build ends: the loop waits for it (as
// EngineMeasurer's does).
std::string ReplayMeasurer::machine_code(const Configuration& config) {
  if (config.is_default()) return m_original_hash;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_builds) m_now = std::max(m_now, m_builds->ends(config.id, m_now));
  }
  auto it = m_recorded.find(config.id);
  return it == m_recorded.end() ? "" : it->second.sass_hash;
}

CandidateResult ReplayMeasurer::measure(const Configuration& config, int) {
  if (m_builds) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!config.is_default()) m_now = std::max(m_now, m_builds->ends(config.id, m_now));
    m_now += m_conditions.measure_s;
  }
  CandidateResult m;
  auto it = m_recorded.find(config.id);
  if (it == m_recorded.end()) {
    m.status = Status::not_recorded;
    m.detail = "the recording has no result for " + config.id;
    return m;
  }
  m = it->second;  // the recorded result, without the log's own fields
  if (m_builds) {
    // What the run's measurer reports of the build and measurement it
    // played, not the recording's (none in a converted recording): the
    // loop's build estimates (build_left_s) and pace read them.
    m.compile_s = config.is_default() ? 0.0 : m_conditions.build_s;
    m.eval_s = m_conditions.measure_s;
    m.phases_s.clear();
  }
  if (m_conditions.noise > 0 && m.status == Status::ok) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const double factor = std::exp(m_conditions.noise * std::normal_distribution<double>(0.0, 1.0)(m_draws));
    m.speedup *= factor;
    m.median_us /= factor;
  }
  return m;
}

double ReplayMeasurer::now() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_now;
}

void ReplayMeasurer::wait_until(double t) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_now = std::max(m_now, t);
}

ConfigSpace recorded_space(const RunLog& log) {
  ConfigSpace space;
  space.original = make_configuration(log.tunables, {}, {});
  std::set<std::string> seen;
  for (const EvaluationRecord& r : log.evaluations) {
    Configuration c = make_configuration(log.tunables, r.settings, r.flags);
    if (c.is_default() || !seen.insert(c.id).second) continue;
    space.configs.push_back(std::move(c));
  }
  space.valid = space.configs.size() + 1;
  space.combinations = space.valid;
  return space;
}

double recorded_best(const RunLog& log) {
  double best = 1.0;
  for (const EvaluationRecord& r : log.evaluations)
    if (r.status == Status::ok && r.speedup > best) best = r.speedup;
  return best;
}

namespace {

// Each part's best verified speedup (`accepted`: accepted ones only), at
// least 1 (the original, in every part); `part_of`: each configuration's
// part, by id, as the space has it.
std::map<std::string, double> best_by_part(const std::map<std::string, std::string>& part_of,
                                           const std::vector<EvaluationRecord>& evaluations, bool accepted) {
  std::map<std::string, double> best;
  for (const auto& [id, part] : part_of) best.emplace(part, 1.0);
  for (const EvaluationRecord& r : evaluations)
    if (auto it = part_of.find(r.id); it != part_of.end() && r.status == Status::ok && (!accepted || r.accepted))
      best[it->second] = std::max(best[it->second], r.speedup);
  return best;
}

// One seed's run of the loop against the recording, under the options'
// conditions.
LoopOutcome play_seed(const RunLog& log, const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                      policy::Policy& policy, const MakePolicy& make_policy, const ReplayOptions& options,
                      std::uint64_t seed) {
  ReplayConditions conditions = options.conditions;
  conditions.seed = seed;
  ReplayMeasurer measurer(log, conditions);
  SearchLoop loop(space, estimates, measurer, policy, [&measurer] { return measurer.now(); });
  LoopOptions lo;
  lo.max_evals = options.max_evals;
  lo.budget_s = conditions.budget_s;  // none unless asked: a replay costs no GPU time
  lo.seed = seed;
  lo.facts = {log.kernel, log.state, log.arch, log.gpu, log.metrics};
  lo.prefetch = 0;
  if (conditions.builders > 0) {
    lo.prefetch = prefetch_for_pool(conditions.builders);
    // As tune does: guesses build while the original is built and measured.
    bool guess_fell_back = false;
    std::unique_ptr<policy::Policy> guesser = make_policy(&guess_fell_back);
    lo.built_ahead =
        speculate_builds(measurer, space, estimates, *guesser, lo, speculative_build_count(conditions.builders));
    measurer.wait_until(conditions.build_s + conditions.measure_s);
  }
  return loop.run(lo);
}

// The run keeps what it measured fastest; with noise, that is judged by
// its recorded figure: the seed's best, and when it came within `target`.
void judge_best(SeedRun& run, const std::map<std::string, double>& recorded_speedup, double target) {
  double best = 1.0, measured_best = 1.0;
  if (best >= target) run.to_band = 0;
  for (const EvaluationRecord& r : run.outcome.evaluations) {
    if (r.accepted && r.speedup > measured_best) {
      measured_best = r.speedup;
      best = recorded_speedup.at(r.id);
    }
    if (run.to_band < 0 && best >= target) run.to_band = r.n;
  }
  run.best = best;
}

}  // namespace

ReplayReport replay(const RunLog& log, const kb::KnowledgeBase& kb,
                    const MakePolicy& make_policy, const ReplayOptions& options) {
  ReplayReport report;
  report.kernel = log.kernel;
  report.band = options.band;
  report.recorded_best = recorded_best(log);
  ConfigSpace space = recorded_space(log);
  report.space_size = std::max(space.configs.size(), log.space_size);
  std::vector<policy::KbEstimate> estimates;
  for (const Configuration& c : space.configs) estimates.push_back(estimate(kb, log.state, log.arch, c));
  const double target = (1.0 - options.band) * report.recorded_best;
  std::size_t parts = 1;
  part_numbers(space, &parts);
  std::map<std::string, std::string> part_of;
  if (parts > 1) {
    for (const Configuration& c : space.configs) part_of[c.id] = c.part;
    report.recorded_best_by_part = best_by_part(part_of, log.evaluations, false);
  }
  std::map<std::string, double> recorded_speedup;
  for (const EvaluationRecord& r : log.evaluations) recorded_speedup.emplace(r.id, r.speedup);
  double sum_to_band = 0, sum_best = 0, sum_evaluated = 0;
  for (int i = 0; i < options.seeds; ++i) {
    SeedRun run;
    run.seed = options.first_seed + static_cast<std::uint64_t>(i);
    std::unique_ptr<policy::Policy> policy = make_policy(&run.fell_back);
    if (report.policy.empty()) report.policy = policy->name();
    run.outcome = play_seed(log, space, estimates, *policy, make_policy, options, run.seed);
    // A fallback can also happen during the run; the factory's flag says
    // whether the script loaded, the guarded policy whether it kept working.
    if (auto* g = dynamic_cast<policy::GuardedPolicy*>(policy.get()); g && g->fell_back()) run.fell_back = true;
    run.evaluations = static_cast<int>(run.outcome.evaluations.size());
    run.duplicates = run.outcome.duplicates;
    judge_best(run, recorded_speedup, target);
    if (parts > 1) {
      run.best_by_part = best_by_part(part_of, run.outcome.evaluations, true);
      bool every = true;
      for (const auto& [part, recorded] : report.recorded_best_by_part)
        every = every && run.best_by_part[part] >= (1.0 - options.band) * recorded;
      report.reached_in_every_part += every;
    }
    report.fell_back = report.fell_back || run.fell_back;
    report.reached += run.to_band >= 0;
    sum_to_band += run.to_band >= 0 ? run.to_band : static_cast<double>(report.space_size);
    sum_best += run.best;
    sum_evaluated += report.space_size ? static_cast<double>(run.evaluations) / report.space_size : 0.0;
    report.runs.push_back(std::move(run));
  }
  if (options.seeds > 0) {
    report.mean_to_band = sum_to_band / options.seeds;
    report.mean_best = sum_best / options.seeds;
    report.mean_fraction_evaluated = sum_evaluated / options.seeds;
    report.mean_fraction_to_band = report.space_size ? report.mean_to_band / report.space_size : 0.0;
  }
  return report;
}

RunLog replayed_log(const RunLog& recorded, const SeedRun& run) {
  RunLog log = recorded;
  log.evaluations = run.outcome.evaluations;
  return log;
}

std::string replay_report_to_json(const ReplayReport& r) {
  nlohmann::json j = {{"kernel", r.kernel},       {"policy", r.policy},
                      {"space_size", r.space_size}, {"recorded_best", r.recorded_best},
                      {"band", r.band},           {"mean_evaluations_to_band", r.mean_to_band},
                      {"mean_fraction_to_band", r.mean_fraction_to_band}, {"mean_best", r.mean_best},
                      {"mean_fraction_evaluated", r.mean_fraction_evaluated}, {"seeds_reaching_band", r.reached},
                      {"fell_back_to_default", r.fell_back}, {"seeds", nlohmann::json::array()}};
  for (const SeedRun& s : r.runs)
    j["seeds"].push_back({{"seed", s.seed},
                          {"evaluations", s.evaluations},
                          {"evaluations_to_band", s.to_band >= 0 ? nlohmann::json(s.to_band) : nlohmann::json()},
                          {"best", s.best},
                          {"fraction_evaluated",
                           r.space_size ? static_cast<double>(s.evaluations) / r.space_size : 0.0},
                          {"duplicates", s.duplicates},
                          {"stop_reason", search_stop_name(s.outcome.stop)},
                          {"fell_back_to_default", s.fell_back}});
  if (!r.recorded_best_by_part.empty()) {
    j["recorded_best_by_part"] = r.recorded_best_by_part;
    j["seeds_reaching_band_in_every_part"] = r.reached_in_every_part;
    for (std::size_t i = 0; i < r.runs.size(); ++i) j["seeds"][i]["best_by_part"] = r.runs[i].best_by_part;
  }
  return j.dump(2);
}

std::string replay_trace_to_json(const ReplayReport& r) {
  nlohmann::json seeds = nlohmann::json::array();
  for (const SeedRun& s : r.runs) {
    nlohmann::json picks = nlohmann::json::array();
    for (const EvaluationRecord& e : s.outcome.evaluations)
      picks.push_back({e.id, status_name(e.status), e.speedup, e.accepted});
    seeds.push_back({{"seed", s.seed}, {"best", s.best}, {"picks", picks}});
  }
  return nlohmann::json{{"kernel", r.kernel}, {"policy", r.policy}, {"recorded_best", r.recorded_best},
                        {"seeds", seeds}}
      .dump();
}

std::string replay_report_to_text(const ReplayReport& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%s: policy %s, %zu configurations, recorded best %.3fx, band %.0f%%\n",
                r.kernel.c_str(), r.policy.c_str(), r.space_size, r.recorded_best, r.band * 100);
  out += line;
  for (const SeedRun& s : r.runs) {
    std::string band = s.to_band >= 0 ? std::to_string(s.to_band) : std::string("never");
    std::snprintf(line, sizeof line, "  seed %-4llu to band %-6s best %.3fx  evaluated %d (%.0f%%)%s\n",
                  static_cast<unsigned long long>(s.seed), band.c_str(), s.best, s.evaluations,
                  r.space_size ? 100.0 * s.evaluations / r.space_size : 0.0,
                  s.fell_back ? "  [fell back to the default policy]" : "");
    out += line;
  }
  // A mean of evaluations to the band means something only over seeds that
  // reached it; one that never did counts as the whole space, and says so.
  if (r.reached == 0)
    std::snprintf(line, sizeof line, "mean: no seed reached the band (0/%zu), best %.3fx\n", r.runs.size(), r.mean_best);
  else if (static_cast<std::size_t>(r.reached) < r.runs.size())
    std::snprintf(line, sizeof line,
                  "mean: %.1f evaluations to the band (%.1f%% of the space), each of the %zu seeds that never reached "
                  "it counted as the whole space (%d/%zu reached it), best %.3fx\n",
                  r.mean_to_band, 100 * r.mean_fraction_to_band, r.runs.size() - static_cast<std::size_t>(r.reached),
                  r.reached, r.runs.size(), r.mean_best);
  else
    std::snprintf(line, sizeof line,
                  "mean: %.1f evaluations to the band (%.1f%% of the space; %d/%zu seeds reached it), best %.3fx\n",
                  r.mean_to_band, 100 * r.mean_fraction_to_band, r.reached, r.runs.size(), r.mean_best);
  out += line;
  return out;
}

}  // namespace kernelblaster::tuner
