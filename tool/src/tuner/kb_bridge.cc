#include "tuner/kb_bridge.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "tuner/setting_effects.h"

namespace kernelblaster::tuner {
namespace {

// A setting's observations, each weighted by how much its state counts.
struct Evidence {
  double tries = 0, measured = 0, measured_sum = 0;
  std::int64_t raw_tries = 0, raw_measured = 0, successes = 0;
  kb::Stats pooled;  // every matching entry, unweighted: for the standard error
};

Evidence gather(const kb::KnowledgeBase& kb, const std::string& state, const std::string& arch, const Setting& s) {
  Evidence e;
  const std::string key = s.key();
  for (const auto& [k, stats] : kb.stats) {
    if (k.arch != arch || k.technique != s.technique || k.setting != key || stats.tries == 0) continue;
    double w = k.state == state ? 1.0 : kOtherStateWeight;
    e.tries += w * static_cast<double>(stats.tries);
    e.measured += w * static_cast<double>(stats.measured);
    e.measured_sum += w * static_cast<double>(stats.measured) * stats.mean;
    e.raw_tries += stats.tries;
    e.raw_measured += stats.measured;
    e.successes += stats.successes;
    e.pooled = e.pooled.tries == 0 ? stats : kb::combine(e.pooled, stats);
  }
  return e;
}

// The id of `c` with setting `k` back at its default.
std::string id_without(const RunLog& log, const EvaluationRecord& r, const Setting& k) {
  std::map<std::string, std::string> values = r.settings;
  std::vector<std::string> flags = r.flags;
  if (k.flag)
    flags.erase(std::remove(flags.begin(), flags.end(), k.value), flags.end());
  else
    values.erase(k.name);
  return make_configuration(log.tunables, values, flags).id;
}

}  // namespace

policy::KbEstimate estimate(const kb::KnowledgeBase& kb, const std::string& state, const std::string& arch,
                            const Configuration& config) {
  policy::KbEstimate e;
  if (config.settings.empty()) return e;
  double log_mean = 0, log_pred = 0, confidence = 0;
  for (const Setting& s : config.settings) {
    Evidence ev = gather(kb, state, arch, s);
    if (ev.tries <= 0) {  // unknown: effect 1 (log 0), confidence 0; the state's techniques noted
      if (const kb::Technique* t = kb.find_technique(s.technique); t && t->helps(state)) ++e.helps_state;
      continue;
    }
    e.tries += ev.raw_tries;
    e.failed += ev.raw_tries - ev.raw_measured;
    e.successes += ev.successes;
    // As kb::refresh_prediction, with weighted counts: an unmeasured try
    // (a failure) is an observation of 1.0, the prior kPriorWeight more.
    double predicted = (ev.measured_sum + (ev.tries - ev.measured) + kb::kPriorWeight) / (ev.tries + kb::kPriorWeight);
    // What the KB cannot tell from measurement noise is no effect: the
    // predicted effect moves towards none by kNoiseStandardErrors standard
    // errors of the mean of its measurements.
    if (ev.pooled.measured > 1) {
      double margin = kNoiseStandardErrors * std::sqrt(ev.pooled.variance() / static_cast<double>(ev.pooled.measured));
      double effect = predicted - 1.0;
      predicted = 1.0 + std::copysign(std::max(0.0, std::abs(effect) - margin), effect);
    }
    if (predicted > 0 && std::isfinite(predicted)) log_pred += std::log(predicted);
    if (ev.measured > 0 && ev.measured_sum > 0) log_mean += std::log(ev.measured_sum / ev.measured);
    confidence += ev.tries / (ev.tries + kb::kConfidenceWeight);
  }
  e.mean_speedup = std::exp(log_mean);
  e.predicted_speedup = std::exp(log_pred);
  e.confidence = confidence / static_cast<double>(config.settings.size());
  return e;
}

std::vector<kb::Outcome> outcomes_of(const RunLog& log) {
  SettingEffects fit = fit_setting_effects(log);
  std::map<std::string, Status> status_of;
  for (const EvaluationRecord& r : log.evaluations) status_of.emplace(r.id, r.status);
  std::vector<kb::Outcome> out;
  for (std::size_t i = 0; i < log.evaluations.size(); ++i) {
    const EvaluationRecord& r = log.evaluations[i];
    if (!judges_the_candidate(r.status)) continue;  // says nothing about the configuration
    Configuration c = make_configuration(log.tunables, r.settings, r.flags);
    bool verified = r.status == Status::ok && std::isfinite(r.speedup) && r.speedup > 0;
    for (const Setting& s : c.settings) {
      kb::Outcome o;
      o.state = log.state.empty() ? "unclassified" : log.state;
      o.technique = s.technique;
      o.arch = log.arch;
      o.setting = s.key();
      o.verified = verified;
      if (verified) {
        o.speedup = std::exp(fit.log_effect[o.setting] + fit.residual[i]);
      } else {
        auto base = status_of.find(id_without(log, r, s));
        if (base != status_of.end() && base->second != Status::ok && judges_the_candidate(base->second)) continue;
        o.speedup = 0.0;
      }
      out.push_back(std::move(o));
    }
  }
  return out;
}

}  // namespace kernelblaster::tuner
