// Synthetic exhaustive recordings for KB-transfer tests: a kernel is a set
// of tunables and flag dimensions and a factor per setting ("VEC_BYTES=16" ->
// 1.2); a configuration's speedup is the product of its settings' factors
// (1 for a setting not listed) times log-normal measurement noise. The
// recordings are marked synthetic: they are never measurements.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "policy/default_policy.h"
#include "tuner/config_space.h"
#include "tuner/flag_space.h"
#include "tuner/kb_bridge.h"
#include "tuner/replay.h"
#include "tuner/run_log.h"

namespace kernelblaster::tuner::testing {

struct SyntheticKernel {
  std::string name;
  std::string state = "memory_bandwidth_bound";
  std::vector<Tunable> tunables;
  std::map<std::string, double> factor;  // setting key -> speedup factor
  double noise = 0.01;                   // standard deviation of the log speedup
  std::uint64_t noise_seed = 1;
  bool flags = true;                     // the default flag dimensions of sm_90; false: none
};

inline Tunable synthetic_tunable(const std::string& name, std::vector<std::string> values, const std::string& dflt,
                                 const std::string& technique) {
  Tunable t;
  t.name = name;
  t.values = std::move(values);
  t.default_value = dflt;
  t.technique = technique;
  return t;
}

inline Tunable block_size() {
  return synthetic_tunable("BLOCK_SIZE", {"64", "128", "256", "512", "1024"}, "256", "block_size_adaptation");
}
inline Tunable vec_bytes() {
  return synthetic_tunable("VEC_BYTES", {"4", "8", "16"}, "4", "thread_coarsening");
}

// A standard normal deviate from a portable generator (std:: distributions
// differ between standard libraries).
inline double synthetic_normal(std::uint64_t& state) {
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  };
  double u1 = next(), u2 = next();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Every configuration of the kernel measured once, in enumeration order.
inline RunLog synthetic_recording(const SyntheticKernel& k) {
  RunLog log;
  log.synthetic = true;
  log.note = "synthetic: made by tests/tuner/synthetic_kernels.h";
  log.kernel = k.name;
  log.state = k.state;
  log.arch = "sm_90";
  log.gpu = "synthetic";
  log.policy = "exhaustive";
  log.tunables = k.tunables;
  if (k.flags) log.flag_dimensions = default_flag_dimensions("sm_90");
  SpaceDecl decl;
  decl.tunables = k.tunables;
  ConfigSpace space = enumerate_space(decl, log.flag_dimensions);
  log.space_size = space.configs.size();
  log.original_sass_hash = "original";
  std::uint64_t rng = k.noise_seed;
  int n = 0;
  for (const Configuration& c : space.configs) {
    double log_speedup = k.noise * synthetic_normal(rng);
    for (const Setting& s : c.settings)
      if (auto it = k.factor.find(s.key()); it != k.factor.end()) log_speedup += std::log(it->second);
    EvaluationRecord r;
    r.n = ++n;
    r.id = c.id;
    for (const Setting& s : c.settings)
      if (!s.flag) r.settings[s.name] = s.value;
    r.flags = c.flags;
    r.status = kernelblaster::Status::ok;
    r.speedup = std::exp(log_speedup);
    r.sass_hash = "h" + std::to_string(n);  // every configuration distinct code
    log.evaluations.push_back(r);
  }
  return log;
}

inline std::unique_ptr<policy::Policy> synthetic_default_policy(bool* fell_back) {
  *fell_back = false;
  return policy::make_default_policy();
}

// What `policy replay --learn` does: the default policy's first seed over
// the recording, its outcomes recorded into `kb`.
inline void learn_from(kb::KnowledgeBase& kb, const RunLog& recording) {
  ReplayOptions opt;
  opt.seeds = 1;
  ReplayReport report = replay(recording, kb, synthetic_default_policy, opt);
  for (const kb::Outcome& o : outcomes_of(replayed_log(recording, report.runs.front()))) kb::record(kb, o);
}

inline double mean_to_band(const RunLog& recording, const kb::KnowledgeBase& kb, int seeds = 10) {
  ReplayOptions opt;
  opt.seeds = seeds;
  return replay(recording, kb, synthetic_default_policy, opt).mean_to_band;
}

}  // namespace kernelblaster::tuner::testing
