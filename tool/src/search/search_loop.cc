#include "search/search_loop.h"

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

namespace kernelblaster::search {

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

// The policy's stream for its call after `selected` selections: different
// for every call, reproducible from the run's seed.
std::uint64_t context_seed(std::uint64_t run_seed, int selected) {
  return run_seed * 1'000'003ull + static_cast<std::uint64_t>(selected);
}

int reachable(const ConfigSpace& space, const LoopOptions& opt) {
  int size = static_cast<int>(space.configs.size());
  return opt.max_evals > 0 ? std::min(opt.max_evals, size) : size;
}

// What every context of a run says about the kernel, before its actions.
policy::Context kernel_context(const LoopOptions& opt) {
  policy::Context ctx;
  ctx.kernel = opt.kernel;
  ctx.state = opt.state;
  ctx.arch = opt.arch;
  ctx.gpu = opt.gpu;
  ctx.metrics = opt.metrics;
  return ctx;
}

}  // namespace

policy::Context first_context(const ConfigSpace& space, const std::vector<policy::KbEstimate>& estimates,
                              const LoopOptions& opt) {
  policy::Context ctx = kernel_context(opt);
  for (std::size_t i = 0; i < space.configs.size(); ++i)
    ctx.actions.push_back(action_of(space.configs[i], i < estimates.size() ? estimates[i] : policy::KbEstimate{}));
  ctx.evaluations_left = reachable(space, opt);
  ctx.seconds_left = opt.budget_s > 0 ? opt.budget_s : 1e9;
  ctx.best_speedup = 1.0;
  ctx.seed = context_seed(opt.seed, 0);
  return ctx;
}

namespace {

struct Finished {
  std::size_t config = 0;
  int device = 0;
  int n = 0;
  std::string hash;
  Measurement m;
};

struct WaitingDuplicate {
  std::size_t config = 0;
  int n = 0;
  std::string hash;
};

}  // namespace

LoopOutcome SearchLoop::run(const LoopOptions& opt, const std::function<void(const LoopProgress&)>& progress) {
  const std::vector<Configuration>& configs = m_space.configs;
  const double t0 = m_clock();
  const double deadline = opt.budget_s > 0 ? t0 + opt.budget_s : std::numeric_limits<double>::infinity();
  const int total = reachable(m_space, opt);

  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < configs.size(); ++i) index_of[configs[i].id] = i;
  std::vector<bool> taken(configs.size(), false);  // selected: in flight, waiting or done
  std::size_t untaken = configs.size();
  std::vector<policy::HistoryEntry> history;
  std::map<std::size_t, std::size_t> result_of;    // config → index in outcome.evaluations
  std::map<std::string, std::size_t> hash_owner;   // SASS hash + tunable values → the config measured for it
  std::map<std::size_t, std::vector<WaitingDuplicate>> waiting;
  LoopOutcome outcome;
  double best_speedup = 1.0;

  std::deque<int> free_devices(opt.devices.begin(), opt.devices.end());
  if (free_devices.empty()) free_devices.push_back(0);
  std::map<int, std::thread> running;
  std::mutex mutex;
  std::condition_variable finished_cv;
  std::deque<Finished> finished;

  auto context = [&] {
    policy::Context ctx = kernel_context(opt);
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (!taken[i]) ctx.actions.push_back(action_of(configs[i], m_estimates[i]));
    ctx.history = history;
    int selected = static_cast<int>(configs.size() - untaken);
    ctx.evaluations_left = std::max(0, total - selected);
    ctx.seconds_left = std::isinf(deadline) ? 1e9 : std::max(0.0, deadline - m_clock());
    ctx.best_speedup = best_speedup;
    // A different, reproducible stream for every call of the policy.
    ctx.seed = context_seed(opt.seed, selected);
    return ctx;
  };

  auto conclude = [&](EvaluationRecord rec) {
    policy::HistoryEntry h{rec.id, status_name(rec.status), rec.speedup, rec.median_us, false};  // Lua's edge: a name
    // Tried actions leave ctx.actions: the history keeps what they were.
    if (auto it = index_of.find(rec.id); it != index_of.end()) {
      policy::Action a = action_of(configs[it->second], {});
      h.technique = a.technique;
      h.settings = a.settings;
    }
    std::optional<bool> verdict = m_policy.accept(context(), h);
    bool verified = rec.status == Status::ok;
    rec.accepted = verified && (verdict ? *verdict : rec.speedup > best_speedup);
    h.accepted = rec.accepted;
    history.push_back(h);
    rec.at_s = m_clock() - t0;
    outcome.evaluations.push_back(std::move(rec));
    const EvaluationRecord& kept = outcome.evaluations.back();
    result_of[index_of[kept.id]] = outcome.evaluations.size() - 1;
    if (kept.accepted && kept.speedup > best_speedup) {
      best_speedup = kept.speedup;
      outcome.best = static_cast<int>(outcome.evaluations.size() - 1);
    }
    if (progress) {
      LoopProgress p;
      p.done = static_cast<int>(outcome.evaluations.size());
      p.total = total;
      p.best_speedup = best_speedup;
      if (outcome.best >= 0) p.best_id = outcome.evaluations[outcome.best].id;
      p.last = &kept;
      progress(p);
    }
  };

  auto record_for = [&](std::size_t cfg, int n, const std::string& hash) {
    EvaluationRecord rec;
    rec.n = n;
    rec.id = configs[cfg].id;
    for (const Setting& s : configs[cfg].settings)
      if (!s.flag) rec.settings[s.name] = s.value;
    rec.flags = configs[cfg].flags;
    rec.sass_hash = hash;
    return rec;
  };

  auto conclude_duplicate = [&](const WaitingDuplicate& d, const EvaluationRecord& first) {
    EvaluationRecord rec = record_for(d.config, d.n, d.hash);
    rec.status = first.status;
    rec.detail = first.detail;
    rec.speedup = first.speedup;
    rec.median_us = first.median_us;
    rec.reference_median_us = first.reference_median_us;
    rec.duplicate_of = first.id;
    ++outcome.duplicates;
    conclude(std::move(rec));
  };

  // Candidates whose machine code is the original's are not measured: they
  // are the original, speedup 1 by definition.
  const std::size_t kOriginal = configs.size();
  EvaluationRecord original_record;
  original_record.id = m_space.original.id;
  original_record.status = Status::ok;
  original_record.speedup = 1.0;
  // Equal machine code is the same candidate only with equal tunable values:
  // a tunable may change host code too (a launch configuration such as
  // <<<grid, BLOCK_SIZE>>> is not in the SASS), while the flags searched
  // (fast math, register cap, cache policy, arch) change device code only.
  auto dedup_key = [](const Configuration& c, const std::string& sass) {
    if (sass.empty()) return std::string();
    std::string key = sass;
    for (const auto& [name, value] : c.values) key += "|" + name + "=" + value;
    return key;
  };
  if (std::string k = dedup_key(m_space.original, m_measurer.machine_code(m_space.original)); !k.empty())
    hash_owner[k] = kOriginal;

  bool stopping = false;
  for (;;) {
    while (!stopping && !free_devices.empty()) {
      int selected = static_cast<int>(configs.size() - untaken);
      if (untaken == 0) outcome.stop_reason = "space exhausted";
      else if (opt.max_evals > 0 && selected >= opt.max_evals) outcome.stop_reason = "evaluation cap";
      else if (m_clock() >= deadline) outcome.stop_reason = "deadline";
      else if (std::optional<bool> s = m_policy.stop(context()); s && *s) outcome.stop_reason = "policy";
      if (!outcome.stop_reason.empty()) {
        stopping = true;
        break;
      }
      std::vector<std::size_t> picks;
      for (const std::string& id : m_policy.select(context())) {
        auto it = index_of.find(id);
        if (it != index_of.end() && !taken[it->second] &&
            std::find(picks.begin(), picks.end(), it->second) == picks.end())
          picks.push_back(it->second);
      }
      if (picks.empty())  // a guarded policy never returns nothing valid; be safe anyway
        for (std::size_t i = 0; i < configs.size() && picks.empty(); ++i)
          if (!taken[i]) picks.push_back(i);
      std::size_t cfg = picks.front();
      taken[cfg] = true;
      --untaken;
      int n = selected + 1;
      m_measurer.prepare(configs[cfg]);
      // Never further ahead than the run can still select: a build past the
      // evaluation cap is never used, and the run's end waits for it.
      const int ahead = std::min(opt.prefetch, total - n);
      for (std::size_t k = 1; k < picks.size() && static_cast<int>(k) <= ahead; ++k)
        m_measurer.prepare(configs[picks[k]]);
      std::string hash = m_measurer.machine_code(configs[cfg]);
      if (std::string key = dedup_key(configs[cfg], hash); !key.empty()) {
        auto owner = hash_owner.find(key);
        if (owner != hash_owner.end()) {
          WaitingDuplicate d{cfg, n, hash};
          auto done = result_of.find(owner->second);
          if (owner->second == kOriginal) conclude_duplicate(d, original_record);
          else if (done != result_of.end()) conclude_duplicate(d, outcome.evaluations[done->second]);
          else waiting[owner->second].push_back(d);
          continue;
        }
        hash_owner[key] = cfg;
      }
      int device = free_devices.front();
      free_devices.pop_front();
      running[device] = std::thread([this, &configs, &mutex, &finished, &finished_cv, cfg, device, n, hash] {
        Finished f{cfg, device, n, hash, {}};
        try {
          f.m = m_measurer.measure(configs[cfg], device);
        } catch (const std::exception& x) {
          f.m.status = Status::tool_error;
          f.m.detail = x.what();
          f.m.speedup = 0;
        }
        std::lock_guard<std::mutex> lock(mutex);
        finished.push_back(std::move(f));
        finished_cv.notify_one();
      });
    }
    if (running.empty()) break;
    std::deque<Finished> batch;
    {
      std::unique_lock<std::mutex> lock(mutex);
      finished_cv.wait(lock, [&] { return !finished.empty(); });
      batch.swap(finished);
    }
    for (Finished& f : batch) {
      running[f.device].join();
      running.erase(f.device);
      free_devices.push_back(f.device);
      EvaluationRecord rec = record_for(f.config, f.n, f.hash);
      rec.status = f.m.status;
      rec.detail = f.m.detail;
      rec.speedup = f.m.verified() ? f.m.speedup : 0.0;
      rec.median_us = f.m.median_us;
      rec.reference_median_us = f.m.reference_median_us;
      rec.compile_s = f.m.compile_s;
      rec.eval_s = f.m.eval_s;
      rec.device = f.device;
      ++outcome.measured;
      conclude(rec);
      const EvaluationRecord first = outcome.evaluations.back();
      for (const WaitingDuplicate& d : waiting[f.config]) conclude_duplicate(d, first);
      waiting.erase(f.config);
    }
  }
  outcome.seconds = m_clock() - t0;
  return outcome;
}

}  // namespace kernelblaster::search
