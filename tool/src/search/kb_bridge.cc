#include "search/kb_bridge.h"

#include <cmath>

namespace kernelblaster::search {
namespace {

struct Lookup {
  kb::Stats stats;
  double confidence_scale = 0;  // 0: nothing known
};

Lookup lookup(const kb::KnowledgeBase& kb, const std::string& state, const std::string& arch, const Setting& s) {
  Lookup out;
  auto exact = kb.stats.find(kb::StatsKey{state, s.technique, arch, s.key()});
  if (exact != kb.stats.end() && exact->second.tries > 0) {
    out.stats = exact->second;
    out.confidence_scale = 1.0;
    return out;
  }
  bool any = false;
  for (const auto& [key, stats] : kb.stats) {
    if (key.technique != s.technique || key.arch != arch || key.setting != s.key() || stats.tries == 0) continue;
    out.stats = any ? kb::combine(out.stats, stats) : stats;
    any = true;
  }
  if (any) {
    kb::refresh_prediction(out.stats);
    out.confidence_scale = 0.5;
  }
  return out;
}

}  // namespace

policy::KbEstimate estimate(const kb::KnowledgeBase& kb, const std::string& state, const std::string& arch,
                            const Configuration& config) {
  policy::KbEstimate e;
  if (config.settings.empty()) return e;
  double log_mean = 0, log_pred = 0, confidence = 0;
  for (const Setting& s : config.settings) {
    Lookup l = lookup(kb, state, arch, s);
    if (l.confidence_scale == 0) continue;  // neutral: log 1 = 0, confidence 0
    e.tries += l.stats.tries;
    e.successes += l.stats.successes;
    if (l.stats.measured > 0 && l.stats.mean > 0) log_mean += std::log(l.stats.mean);
    if (l.stats.predicted > 0) log_pred += std::log(l.stats.predicted);
    confidence += l.stats.confidence * l.confidence_scale;
  }
  double n = static_cast<double>(config.settings.size());
  e.mean_speedup = std::exp(log_mean / n);
  e.predicted_speedup = std::exp(log_pred / n);
  e.confidence = confidence / n;
  return e;
}

std::vector<kb::Outcome> outcomes_of(const RunLog& log) {
  std::vector<kb::Outcome> out;
  for (const EvaluationRecord& r : log.evaluations) {
    if (r.status == "reference_failed" || r.status == "no_gpu" || r.status == "harness_error") continue;
    Configuration c = make_configuration(log.tunables, r.settings, r.flags);
    for (const Setting& s : c.settings) {
      kb::Outcome o;
      o.state = log.state.empty() ? "unclassified" : log.state;
      o.technique = s.technique;
      o.arch = log.arch;
      o.setting = s.key();
      o.verified = r.status == "ok";
      o.speedup = o.verified ? r.speedup : 0.0;
      out.push_back(std::move(o));
    }
  }
  return out;
}

}  // namespace kernelblaster::search
