#include "tuner/search_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include "judge/result.h"

namespace kernelblaster::tuner {

const char* search_stop_name(SearchStop s) {
  switch (s) {
    case SearchStop::running: return "running";
    case SearchStop::space_exhausted: return "space exhausted";
    case SearchStop::evaluation_cap: return "evaluation cap";
    case SearchStop::deadline: return "deadline";
    case SearchStop::build_past_deadline: return "build past deadline";
    case SearchStop::policy: return "policy";
    case SearchStop::original_failed: return "original failed";
  }
  return "running";
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

policy::Action action_of(const Configuration& config, const policy::KbEstimate& kb) {
  policy::Action a;
  a.id = config.id;
  std::set<std::string> techniques;
  for (const Setting& s : config.settings) techniques.insert(s.technique);
  for (const std::string& t : techniques) a.technique += (a.technique.empty() ? "" : "+") + t;
  a.settings = config.values;
  std::string flags;
  for (const std::string& f : config.flags) flags += (flags.empty() ? "" : " ") + f;
  if (!flags.empty()) a.settings["flags"] = flags;
  a.kb = kb;
  return a;
}

SearchLoop::SearchLoop(const ConfigSpace& space, std::vector<policy::KbEstimate> estimates, Measurer& measurer,
                       policy::Policy& policy, std::function<double()> clock)
    : m_space(space), m_estimates(std::move(estimates)), m_measurer(measurer), m_policy(policy),
      m_clock(std::move(clock)) {
  m_estimates.resize(m_space.configs.size());
}

namespace {

// What every context of a run says about the kernel, before its actions.
policy::Context kernel_context(const LoopOptions& opt) {
  policy::Context ctx;
  static_cast<policy::KernelFacts&>(ctx) = opt.facts;
  return ctx;
}

// A part whose best has not risen in this many results yields its turns
// to the parts still gaining: SGEMM_CUDA's kernel 6 reaches its best within
// 25 tries (replayed on the H200's exhaustive landscape), and beside
// kernel 10 an even share left kernel 10 short of its best (3 of 10 seeds
// at 200 evaluations) while kernel 6 had long stopped gaining.
constexpr int kStalledTries = 30;

// Evaluations in a row that found the original itself unable to judge
// (Status::reference_failed), with none verified, before the search ends:
// SGEMM_CUDA's kernel 11 (an H200, 2026-11-30) spent its 480 s budget on
// 375 candidates judged against an original that races with itself.
constexpr int kOriginalFailuresToStop = 3;

// A part's even share of `left` evaluations among `open` parts, at most its own `untaken`.
int share_of(int left, int open, std::size_t untaken) {
  const int share = open > 1 ? (left + open - 1) / open : left;
  return std::min(share, static_cast<int>(untaken));
}

}  // namespace

int reachable(const ConfigSpace& space, const LoopOptions& opt) {
  int size = static_cast<int>(space.configs.size());
  return opt.max_evals > 0 ? std::min(opt.max_evals, size) : size;
}

std::vector<std::size_t> part_numbers(const ConfigSpace& space, std::size_t* parts) {
  std::map<std::string, std::size_t> number;
  std::vector<std::size_t> out;
  for (const Configuration& c : space.configs) {
    if (c.part == kMixedPart) {
      *parts = 1;
      return std::vector<std::size_t>(space.configs.size(), 0);
    }
    out.push_back(number.emplace(c.part, number.size()).first->second);
  }
  *parts = std::max<std::size_t>(1, number.size());
  return out;
}

namespace {

// The first context of each part: its actions (`part_of`: each
// configuration's part, of `parts`) and an even share of the evaluations.
std::vector<policy::Context> part_contexts(const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                                           const LoopOptions& opt, const std::vector<std::size_t>& part_of,
                                           std::size_t parts) {
  policy::Context empty = first_context(ConfigSpace{space.original, {}}, {}, opt);
  std::vector<policy::Context> out(parts, empty);
  for (std::size_t i = 0; i < space.configs.size(); ++i)
    out[part_of[i]].actions.push_back(
        action_of(space.configs[i], i < estimates.size() ? estimates[i] : policy::KbEstimate{}));
  const int left = reachable(space, opt);
  for (policy::Context& ctx : out)
    ctx.evaluations_left = share_of(left, static_cast<int>(parts), ctx.actions.size());
  return out;
}

}  // namespace

std::vector<policy::Context> first_contexts(const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                                            const LoopOptions& opt) {
  std::size_t parts = 1;
  const std::vector<std::size_t> part_of = part_numbers(space, &parts);
  return part_contexts(space, estimates, opt, part_of, parts);
}

policy::Context first_context(const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                              const LoopOptions& opt) {
  policy::Context ctx = kernel_context(opt);
  ctx.original = action_of(space.original, {}).settings;
  for (std::size_t i = 0; i < space.configs.size(); ++i)
    ctx.actions.push_back(action_of(space.configs[i], i < estimates.size() ? estimates[i] : policy::KbEstimate{}));
  ctx.evaluations_left = reachable(space, opt);
  ctx.seconds_left = opt.budget_s > 0 ? opt.budget_s : 1e9;
  ctx.best_speedup = 1.0;
  ctx.seed = opt.seed;
  return ctx;
}

namespace {

struct Finished {
  std::size_t config = 0;
  int device = 0;
  int n = 0;
  std::string hash;
  CandidateResult m;
  double started = 0;  // the loop's clock when its measurement began
  double waited = 0;   // seconds the loop waited for its build after picking it
};

struct WaitingDuplicate {
  std::size_t config = 0;
  int n = 0;
  std::string hash;
};

// Equal machine code is the same candidate only with equal tunable values:
// a tunable may change host code too (a launch configuration such as
// <<<grid, BLOCK_SIZE>>> is not in the SASS), while the flags searched
// (fast math, register cap, cache policy, arch) change device code only.
std::string dedup_key(const Configuration& c, const std::string& sass) {
  if (sass.empty()) return {};
  std::string key = sass;
  for (const auto& [name, value] : c.values) key += "|" + name + "=" + value;
  return key;
}

}  // namespace

// One run of the loop: its state, and the steps SearchLoop::run takes.
// select → (duplicate of a measured or waiting config | measure on a free
// device) → conclude → tell the policy; until a stop reason.
//
// A space of several parts (Configuration::part: one per group of launch
// sites, and the flags') is several searches that share the run: each
// part has its own context (its actions, its history, its best), so the
// policy walks each as a space of its own, and each pick goes to the open
// part that has had the fewest. With one context for all, the walk stayed
// in the part that gained first: SGEMM_CUDA's kernel 6, whose best is a
// two-setting move, had 11 and 15 of 62 and 70 tries beside kernels 5 and
// 10 (H200, 2026-11-29), where alone it reaches its best in 25; and a
// part's gain smaller than another part's best was never accepted, so the
// composed winner (focused_winner.h) could not take it.
class SearchLoop::Run {
 public:
  Run(const SearchLoop& loop, const LoopOptions& opt, const std::function<void(const LoopProgress&)>& progress)
      : m_loop(loop), m_configs(loop.m_space.configs), m_opt(opt), m_progress(progress), m_t0(loop.m_clock()),
        m_deadline(opt.budget_s > 0 ? m_t0 + opt.budget_s : std::numeric_limits<double>::infinity()),
        m_total(reachable(loop.m_space, opt)), m_taken(m_configs.size(), false), m_untaken(m_configs.size()),
        m_asked_once(m_configs.size(), false),
        m_free_devices(opt.devices.begin(), opt.devices.end()) {
    for (std::size_t i = 0; i < m_configs.size(); ++i) m_index_of[m_configs[i].id] = i;
    for (const std::string& id : opt.built_ahead)
      if (auto it = m_index_of.find(id); it != m_index_of.end() && !m_asked_once[it->second])
        m_asked_once[it->second] = true, m_asked.push_back(it->second);
    std::size_t parts = 1;
    m_part_of = part_numbers(loop.m_space, &parts);
    m_parts.resize(parts);
    std::vector<policy::Context> contexts = part_contexts(loop.m_space, loop.m_estimates, opt, m_part_of, parts);
    for (std::size_t p = 0; p < parts; ++p) m_parts[p].ctx = std::move(contexts[p]);
    for (std::size_t i = 0; i < m_configs.size(); ++i) m_parts[m_part_of[i]].ctx_config.push_back(i);
    if (m_free_devices.empty()) m_free_devices.push_back(0);
    m_original.id = loop.m_space.original.id;
    m_original.status = Status::ok;
    m_original.speedup = 1.0;
    // Candidates whose machine code is the original's are not measured: they
    // are the original, speedup 1 by definition.
    const Configuration& original = loop.m_space.original;
    if (std::string k = dedup_key(original, loop.m_measurer.machine_code(original)); !k.empty())
      m_hash_owner[k] = kOriginal();
  }

  LoopOutcome run() {
    take_earlier();
    for (;;) {
      while (!m_stopping && !m_free_devices.empty()) {
        if (const SearchStop why = stop_reason(); why != SearchStop::running) {
          m_outcome.stop = why;
          m_stopping = true;
          break;
        }
        select_and_start();
      }
      if (m_running.empty()) break;
      collect();
    }
    m_outcome.seconds = m_loop.m_clock() - m_t0;
    m_outcome.pace_s = m_outcome.measured > 0 ? m_measure_seconds / m_outcome.measured : 0.0;
    return std::move(m_outcome);
  }

  // The earlier runs' evaluations, concluded as they ended then: the
  // policy's history, each part's best, the machine code measured. None of
  // them is selected or measured again.
  void take_earlier() {
    m_replaying = true;
    for (const EvaluationRecord& e : m_opt.earlier) {
      auto it = m_index_of.find(e.id);
      if (it == m_index_of.end() || m_taken[it->second]) continue;
      take(it->second);
      if (std::string key = dedup_key(m_configs[it->second], e.sass_hash); !key.empty() && e.duplicate_of.empty())
        m_hash_owner.emplace(key, it->second);
      conclude(e);
      ++m_outcome.earlier;
    }
    m_replaying = false;
  }

 private:
  std::size_t kOriginal() const { return m_configs.size(); }
  int selected() const { return static_cast<int>(m_configs.size() - m_untaken); }

  // A part's context, kept up to date as the run goes rather than built
  // for each call: a pick costs the same on a space of 20,000 as of 20.
  // Its evaluations left: an even share of the run's, at most what the
  // part has left.
  const policy::Context& context(std::size_t p) {
    Part& part = m_parts[p];
    part.ctx.evaluations_left = share_of(std::max(0, m_total - selected()), open_parts(), part.ctx_config.size());
    part.ctx.seconds_left = std::isinf(m_deadline) ? 1e9 : std::max(0.0, m_deadline - m_loop.m_clock());
    part.ctx.best_speedup = part.best;
    // The run's seed: a Lua policy's stream differs per call through the
    // history's length (lua_policy.cc), the default's draws stay put.
    part.ctx.seed = m_opt.seed;
    return part.ctx;
  }

  int open_parts() const {
    int n = 0;
    for (const Part& part : m_parts) n += part.open();
    return n;
  }

  // The part the next pick is for: of the open parts still gaining, the
  // one that has had the fewest picks (the first of equals); when every
  // open part has stalled, of them all. None when every part is exhausted
  // or stopped by the policy.
  std::optional<std::size_t> next_part() const {
    std::optional<std::size_t> out;
    auto before = [&](std::size_t p) {
      if (!out) return true;
      const bool stalled = m_parts[p].since_gain >= kStalledTries, out_stalled = m_parts[*out].since_gain >= kStalledTries;
      return stalled != out_stalled ? !stalled : m_parts[p].picked < m_parts[*out].picked;
    };
    for (std::size_t p = 0; p < m_parts.size(); ++p)
      if (m_parts[p].open() && before(p)) out = p;
    return out;
  }

  // A selected configuration leaves its part's actions.
  void take(std::size_t cfg) {
    m_taken[cfg] = true;
    --m_untaken;
    Part& part = m_parts[m_part_of[cfg]];
    ++part.picked;
    auto at = std::lower_bound(part.ctx_config.begin(), part.ctx_config.end(), cfg);
    if (at == part.ctx_config.end() || *at != cfg) return;
    part.ctx.actions.erase(part.ctx.actions.begin() + (at - part.ctx_config.begin()));
    part.ctx_config.erase(at);
  }

  // `running` while the run goes on.
  SearchStop stop_reason() {
    if (m_untaken == 0) return SearchStop::space_exhausted;
    if (m_original_failures >= kOriginalFailuresToStop && !m_verified) return SearchStop::original_failed;
    if (m_opt.max_evals > 0 && selected() >= m_opt.max_evals) return SearchStop::evaluation_cap;
    // No measurement starts that would, at the pace so far, end past the
    // deadline, less what the run needs after the loop: the budget bounds
    // the run's end, not its last start.
    if (m_loop.m_clock() + measurement_and_after() >= m_deadline) return SearchStop::deadline;
    // The policy ends a part; the run ends with its last open part.
    while (const std::optional<std::size_t> p = next_part()) {
      const std::optional<bool> s = m_loop.m_policy.stop(context(*p));
      if (!s || !*s) {
        m_turn = *p;
        return SearchStop::running;
      }
      m_parts[*p].stopped = true;
    }
    return SearchStop::policy;
  }

  // A measurement at the pace so far, and what follows the loop at the
  // pace of full checks (full_pace()), never over half the budget; none
  // before a measurement has ended (the first pace counts the original's
  // build, which candidates' builds overlap), nor while there is no winner
  // to look at: rmsnorm with BUDGET
  // 30 (an H200, 2026-11-29) stopped after 3 of its 1,535 configurations
  // and 15 s, keeping 10 s for a look at a winner it did not have.
  double measurement_and_after() const {
    const bool paced = m_outcome.measured > 0;
    const double pace = this->pace();
    const bool winner = (m_opt.reserve_from_speedup <= 0 ||
                         (m_outcome.best >= 0 && m_best_speedup >= m_opt.reserve_from_speedup)) &&
                        (!m_opt.look_due || m_opt.look_due(m_outcome.evaluations));
    const double look = m_opt.finish_paces * full_pace() + m_opt.finish_untimed * pace;
    const double after = paced && winner ? std::min(look * looks_ahead(), 0.5 * m_opt.budget_s) : 0.0;
    return pace + after;
  }

  // The looks after the loop: one for each part whose best reaches
  // look_from_speedup, at least one.
  double looks_ahead() const {
    if (m_opt.look_from_speedup <= 0) return 1;
    const auto n = std::count_if(m_parts.begin(), m_parts.end(),
                                 [&](const Part& p) { return p.best >= m_opt.look_from_speedup; });
    return static_cast<double>(std::max<std::ptrdiff_t>(1, n));
  }

  // Whether `cfg`, picked, can still be built and measured before the
  // deadline: what is left of its build at the mean build time so far
  // (all of it while it waits in the pool's queue), then a measurement. A
  // search whose candidates compile for 12 s each (SGEMM_CUDA's runner.cu)
  // would otherwise start a build the deadline has no room for, and wait
  // for it; counting a build asked for ahead as under way from the ask let
  // two H200 runs wait 10 s for one still queued behind newer asks.
  bool build_fits(std::size_t cfg) const {
    return m_loop.m_clock() + build_left_s(cfg) + measurement_and_after() < m_deadline;
  }

  // The policy's first picks that are still untaken, in its order, as many
  // as the loop can use (the pick and the prefetch window); never empty
  // while something is untaken (a guarded policy never returns nothing
  // valid; be safe anyway).
  std::vector<std::size_t> picks() {
    std::vector<std::size_t> out;
    const std::size_t usable = static_cast<std::size_t>(std::max(0, m_opt.prefetch)) + 1;
    for (const std::string& id : m_opt.first_picks) {
      auto it = m_index_of.find(id);
      if (it != m_index_of.end() && !m_taken[it->second] && m_part_of[it->second] == m_turn)
        out.push_back(it->second);
    }
    if (!out.empty()) return out;  // the policy is asked once they are taken
    for (const std::string& id : m_loop.m_policy.select(context(m_turn))) {
      auto it = m_index_of.find(id);
      if (it != m_index_of.end() && !m_taken[it->second] && m_part_of[it->second] == m_turn &&
          std::find(out.begin(), out.end(), it->second) == out.end())
        out.push_back(it->second);
      if (out.size() == usable) break;
    }
    if (out.empty() && !m_parts[m_turn].ctx_config.empty()) out.push_back(m_parts[m_turn].ctx_config.front());
    for (std::size_t i = 0; i < m_configs.size() && out.empty(); ++i)
      if (!m_taken[i]) out.push_back(i);
    return out;
  }

  // The policy's first pick, or, while its build runs, the first of its
  // next picks already built (prepared earlier, within the prefetch
  // window): the device measures instead of waiting for a compiler, and the
  // pick it passed over is measured next. When none of those is built and
  // the first pick's build has more than a measurement left, a
  // configuration an earlier pick list asked for and the pool has built
  // since: when a new best moves the walk, its next picks all start to
  // build at once, and rmsnorm's device sat idle 6 s of a 14-s loop (an
  // H200, 2026-11-29). A measurer with nothing to build is always ready,
  // so a replay takes the policy's order as it is.
  std::size_t first_ready(const std::vector<std::size_t>& chosen, int ahead) const {
    if (m_loop.m_measurer.ready(m_configs[chosen.front()])) return chosen.front();
    for (std::size_t k = 1; k < chosen.size() && static_cast<int>(k) <= ahead; ++k)
      if (m_loop.m_measurer.ready(m_configs[chosen[k]])) return chosen[k];
    if (build_left_s(chosen.front()) > pace())
      if (const std::optional<std::size_t> asked = latest_built_ask()) return *asked;
    return chosen.front();
  }

  // The latest asked configuration (builds guessed before the loop the
  // earliest) that is built, still untaken, and not one the KB expects to
  // lose. The guesses are asked before the original's state is known, so
  // the KB's knowledge of that state does not shape them: on an H200
  // (2026-11-30) softmax, tuned after rmsnorm on one KB, spent two of its
  // eleven measurements on guessed `BLOCK_SIZE=1024` and `512`, which
  // rmsnorm's run had taught the KB to expect slower.
  std::optional<std::size_t> latest_built_ask() const {
    for (auto it = m_asked.rbegin(); it != m_asked.rend(); ++it)
      if (!m_taken[*it] && !expected_to_lose(*it) && m_loop.m_measurer.ready(m_configs[*it])) return *it;
    return std::nullopt;
  }

  bool expected_to_lose(std::size_t cfg) const {
    const policy::KbEstimate& e = m_loop.m_estimates[cfg];
    return e.tries > 0 && e.predicted_speedup < kExpectedLoss;
  }
  static constexpr double kExpectedLoss = 0.98;  // a loss past the noise of one measurement

  // Near the deadline, when the pick's build cannot end in time: a
  // configuration already built that a measurement can still follow, the
  // policy's picks first (in its order), then the latest asked. The device
  // measures it rather than the run stopping while built configurations
  // wait; with none, the stop is `build past deadline`.
  std::optional<std::size_t> built_and_in_time(const std::vector<std::size_t>& chosen) const {
    if (m_loop.m_clock() + measurement_and_after() >= m_deadline) return std::nullopt;
    for (std::size_t c : chosen)  // picks() leaves out what is taken
      if (m_loop.m_measurer.ready(m_configs[c])) return c;
    return latest_built_ask();
  }

  // What is left of `cfg`'s build at the mean build time so far (all of it
  // while it waits in the pool's queue); nothing before a build was timed.
  double build_left_s(std::size_t cfg) const {
    if (m_builds_timed == 0 || m_loop.m_measurer.ready(m_configs[cfg])) return 0.0;
    const double mean = m_build_seconds / m_builds_timed;
    return std::max(0.0, mean - m_loop.m_measurer.build_elapsed_s(m_configs[cfg]));
  }

  // A measurement's own seconds so far, waits for builds apart (before
  // any: the first's estimate).
  double pace() const {
    return m_outcome.measured > 0 ? m_measure_seconds / m_outcome.measured : m_opt.first_pace_s;
  }

  // The pace had each measurement been a full check: a screen counts at its
  // time over its share (the look runs what screens leave out). Once paced.
  double full_pace() const { return m_full_measure_seconds / m_outcome.measured; }

  void select_and_start() {
    const std::vector<std::size_t> chosen = picks();
    const int n = selected() + 1;
    // Never further ahead than the run can still select: a build past the
    // evaluation cap is never used, and the run's end waits for it.
    const int ahead = std::min(m_opt.prefetch, m_total - n);
    std::size_t cfg = first_ready(chosen, ahead);
    if (!build_fits(cfg)) {
      const std::optional<std::size_t> built = built_and_in_time(chosen);
      if (!built) {
        m_outcome.stop = SearchStop::build_past_deadline;
        m_stopping = true;
        return;
      }
      cfg = *built;
    }
    take(cfg);
    // Last asked, first built (compile_pool.h): the window from its end, so
    // the policy's first pick starts first and stale prefetches wait.
    const std::size_t window = std::min(chosen.size(), static_cast<std::size_t>(std::max(0, ahead)) + 1);
    for (std::size_t k = window; k-- > 0;) {
      m_loop.m_measurer.prepare(m_configs[chosen[k]]);
      if (!m_asked_once[chosen[k]]) m_asked_once[chosen[k]] = true, m_asked.push_back(chosen[k]);
    }
    const double picked = m_loop.m_clock();
    const std::string hash = m_loop.m_measurer.machine_code(m_configs[cfg]);  // waits for its build
    const double waited = m_loop.m_clock() - picked;
    if (std::string key = dedup_key(m_configs[cfg], hash); !key.empty()) {
      if (auto owner = m_hash_owner.find(key); owner != m_hash_owner.end()) {
        settle_duplicate(WaitingDuplicate{cfg, n, hash}, owner->second);
        return;
      }
      m_hash_owner[key] = cfg;
    }
    start_measurement(cfg, n, hash, waited);
  }

  // A duplicate takes its owner's result now, or when the owner's
  // measurement ends.
  void settle_duplicate(const WaitingDuplicate& d, std::size_t owner) {
    if (owner == kOriginal()) return conclude_duplicate(d, m_original);
    if (auto done = m_result_of.find(owner); done != m_result_of.end())
      return conclude_duplicate(d, m_outcome.evaluations[done->second]);
    m_waiting[owner].push_back(d);
  }

  void start_measurement(std::size_t cfg, int n, const std::string& hash, double waited) {
    const int device = m_free_devices.front();
    m_free_devices.pop_front();
    const double started = m_loop.m_clock();
    m_running[device] = std::thread([this, cfg, device, n, hash, started, waited] {
      Finished f{cfg, device, n, hash, {}, started, waited};
      try {
        f.m = m_loop.m_measurer.measure(m_configs[cfg], device);
      } catch (const std::exception& x) {
        f.m.status = Status::tool_error;
        f.m.detail = x.what();
        f.m.speedup = 0;
      }
      std::lock_guard<std::mutex> lock(m_mutex);
      m_finished.push_back(std::move(f));
      m_finished_cv.notify_one();
    });
  }

  // Waits for at least one measurement to end and concludes every ended one.
  void collect() {
    std::deque<Finished> batch;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_finished_cv.wait(lock, [&] { return !m_finished.empty(); });
      batch.swap(m_finished);
    }
    for (Finished& f : batch) {
      m_running[f.device].join();
      m_running.erase(f.device);
      m_free_devices.push_back(f.device);
      EvaluationRecord rec = record_for(f.config, f.n, f.hash);
      static_cast<CandidateResult&>(rec) = f.m;
      if (!rec.verified()) rec.speedup = 0;
      rec.device = f.device;
      rec.build_wait_s = f.waited;
      ++m_outcome.measured;
      const double took = own_seconds(f.m, m_loop.m_clock() - f.started);
      m_measure_seconds += took;
      m_full_measure_seconds += f.m.screen_share > 0 ? took / f.m.screen_share : took;
      if (f.m.compile_s > 0) {
        m_build_seconds += f.m.compile_s;
        ++m_builds_timed;
      }
      conclude(rec);
      const EvaluationRecord first = m_outcome.evaluations.back();
      for (const WaitingDuplicate& d : m_waiting[f.config]) conclude_duplicate(d, first);
      m_waiting.erase(f.config);
    }
  }

  // A measurement's own seconds, the pace's unit: the wall time from its
  // start as the evaluation timed itself where it did, less the original's
  // run, made once by the first measurement and reused by the others. The
  // examples' 30-s runs (an H200, 2026-11-30) paced 1.2-s measurements at
  // 1.66 s after three, the first 2.5 s with the original's run: the
  // reserve for the look reached its cap at half the budget and the loop
  // stopped 3-5 s before it had to.
  static double own_seconds(const CandidateResult& m, double wall) {
    const double base = m.eval_s > 0 ? std::min(m.eval_s, wall) : wall;
    double rest = base;
    for (const char* original : {EvalResult::kReferenceProcessPhase, EvalResult::kCalibrationPhase})
      if (auto it = m.phases_s.find(original); it != m.phases_s.end()) rest -= it->second;
    return rest > 0.25 * base ? rest : base;  // phases that do not add up: the whole
  }

  EvaluationRecord record_for(std::size_t cfg, int n, const std::string& hash) const {
    EvaluationRecord rec;
    rec.n = n;
    rec.id = m_configs[cfg].id;
    for (const Setting& s : m_configs[cfg].settings)
      if (!s.flag) rec.settings[s.name] = s.value;
    rec.flags = m_configs[cfg].flags;
    rec.sass_hash = hash;
    return rec;
  }

  void conclude_duplicate(const WaitingDuplicate& d, const EvaluationRecord& first) {
    EvaluationRecord rec = record_for(d.config, d.n, d.hash);
    static_cast<CandidateResult&>(rec) = first;
    rec.compile_s = rec.eval_s = 0;  // it was neither built nor run: its twin was
    rec.duplicate_of = first.id;
    ++m_outcome.duplicates;
    conclude(std::move(rec));
  }

  // Asks the policy to accept, records the evaluation, keeps the best.
  void conclude(EvaluationRecord rec) {
    policy::HistoryEntry h;
    h.action_id = rec.id;
    h.end = rec.status == Status::ok ? AttemptEnd::verified : AttemptEnd::rejected;
    h.status = rec.status;
    h.speedup = rec.speedup;
    if (rec.verified() && !rec.keepable()) h.slowed_kernel_speedup = rec.slowed_kernel_speedup;
    h.median_us = rec.median_us;
    // Tried actions leave ctx.actions: the history keeps what they were.
    if (auto it = m_index_of.find(rec.id); it != m_index_of.end()) {
      policy::Action a = action_of(m_configs[it->second], {});
      h.technique = a.technique;
      h.settings = a.settings;
    }
    const std::size_t p = m_part_of[m_index_of.at(rec.id)];
    std::optional<bool> verdict = m_loop.m_policy.accept(context(p), h);
    // A candidate that makes one of the call's kernels slower is measured
    // and learnt from, never kept (judge/kernel_speeds.h).
    rec.accepted = rec.keepable() && (verdict ? *verdict : rec.speedup > m_parts[p].best);
    if (rec.verified() && !rec.keepable() && rec.speedup > 1.0 &&
        (m_outcome.best_slowing < 0 || rec.speedup > m_outcome.evaluations[m_outcome.best_slowing].speedup))
      m_outcome.best_slowing = static_cast<int>(m_outcome.evaluations.size());
    h.accepted = rec.accepted;
    m_parts[p].ctx.history.push_back(h);
    if (rec.accepted && rec.speedup > m_parts[p].best) {
      m_parts[p].best = rec.speedup;
      m_parts[p].since_gain = 0;
    } else {
      ++m_parts[p].since_gain;
    }
    if (!m_replaying) rec.at_s = m_loop.m_clock() - m_t0;
    m_verified = m_verified || rec.verified();
    m_original_failures = rec.status == Status::reference_failed ? m_original_failures + 1 : 0;
    m_outcome.evaluations.push_back(std::move(rec));
    const EvaluationRecord& kept = m_outcome.evaluations.back();
    m_result_of[m_index_of[kept.id]] = m_outcome.evaluations.size() - 1;
    if (kept.accepted && kept.speedup > m_best_speedup) {
      m_best_speedup = kept.speedup;
      m_outcome.best = static_cast<int>(m_outcome.evaluations.size() - 1);
    }
    if (!m_replaying) report_progress(kept);
  }

  void report_progress(const EvaluationRecord& last) const {
    if (!m_progress) return;
    LoopProgress p;
    p.done = static_cast<int>(m_outcome.evaluations.size());
    p.total = m_total;
    p.best_speedup = m_best_speedup;
    if (m_outcome.best >= 0) p.best_id = m_outcome.evaluations[m_outcome.best].id;
    p.last = &last;
    p.elapsed_s = m_loop.m_clock() - m_t0;
    p.seconds_left = std::isinf(m_deadline) ? -1 : std::max(0.0, m_deadline - m_loop.m_clock());
    m_progress(p);
  }

  const SearchLoop& m_loop;
  const std::vector<Configuration>& m_configs;
  const LoopOptions& m_opt;
  const std::function<void(const LoopProgress&)>& m_progress;
  const double m_t0;
  const double m_deadline;
  const int m_total;

  std::map<std::string, std::size_t> m_index_of;
  std::vector<bool> m_taken;  // selected: in flight, waiting or done
  std::size_t m_untaken;
  std::vector<std::size_t> m_asked;  // every configuration asked to be built, in order of the first ask
  std::vector<bool> m_asked_once;
  // A part of the space, searched as a space of its own.
  struct Part {
    policy::Context ctx;                  // what the policy sees of it (context())
    std::vector<std::size_t> ctx_config;  // ctx.actions[i] is m_configs[ctx_config[i]]: its untaken ones
    int picked = 0;
    int since_gain = 0;                   // results since its best last rose
    double best = 1.0;                    // its best accepted speedup
    bool stopped = false;                 // the policy's stop()
    bool open() const { return !ctx_config.empty() && !stopped; }
  };
  std::vector<Part> m_parts;
  std::vector<std::size_t> m_part_of;     // config -> its part
  std::size_t m_turn = 0;                 // the part the next pick is for (stop_reason())
  std::map<std::size_t, std::size_t> m_result_of;   // config → index in outcome.evaluations
  std::map<std::string, std::size_t> m_hash_owner;  // SASS hash + tunable values → the config measured for it
  std::map<std::size_t, std::vector<WaitingDuplicate>> m_waiting;
  EvaluationRecord m_original;
  LoopOutcome m_outcome;
  double m_best_speedup = 1.0;
  double m_measure_seconds = 0;  // wall seconds of the measurements ended, together
  double m_full_measure_seconds = 0;  // the same as full checks (each over its screen share)
  double m_build_seconds = 0;    // their candidates' builds, together
  int m_builds_timed = 0;
  bool m_stopping = false;
  bool m_replaying = false;      // concluding the earlier runs' evaluations (take_earlier)
  bool m_verified = false;       // some evaluation verified
  int m_original_failures = 0;   // evaluations in a row that ended reference_failed

  std::deque<int> m_free_devices;
  std::map<int, std::thread> m_running;
  std::mutex m_mutex;
  std::condition_variable m_finished_cv;
  std::deque<Finished> m_finished;
};

int prefetch_for_pool(int pool_threads) { return std::max(2, pool_threads); }

int evaluations_left_estimate(const LoopProgress& p) {
  int left = std::max(0, p.total - p.done);
  if (p.seconds_left < 0 || p.done <= 0 || p.elapsed_s <= 0) return left;
  const double pace = p.elapsed_s / p.done;  // seconds per evaluation so far
  return std::min(left, static_cast<int>(p.seconds_left / pace));
}

LoopOutcome SearchLoop::run(const LoopOptions& opt, const std::function<void(const LoopProgress&)>& progress) {
  return Run(*this, opt, progress).run();
}

}  // namespace kernelblaster::tuner
