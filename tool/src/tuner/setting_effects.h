// What each setting did on its own in one run: a run measures whole
// configurations, and the KB keeps statistics per setting, so the speedup of
// a configuration has to be shared out among its settings before it is
// learnt. Without this a neutral setting (BLOCK_SIZE=128) would inherit the
// gain of the settings it happened to be measured with (VEC_BYTES=16).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/run_log.h"

namespace kernelblaster::tuner {

// The effects are the least-squares fit, over the run's verified
// evaluations, of the main-effects model in log space
//   log speedup(c) = sum of effect(k) over c's non-default settings k
// with the original (no settings) fixed at log 1 = 0: each setting's effect
// is relative to its dimension's default, the base the setting replaces. A
// small ridge term keeps the fit defined when two settings were only ever
// measured together (they then share the effect equally). For a run that
// measured every configuration (a full factorial) each effect equals the
// mean log speedup of the configurations with the setting minus that of the
// same configurations with the dimension's default.
struct SettingEffects {
  std::map<std::string, double> log_effect;  // setting key -> fitted log speedup
  std::map<std::string, int> support;        // setting key -> verified evaluations with it
  // log speedup(c) minus the fitted log speedup, per evaluation index of the
  // log (0 for one that is not verified).
  std::vector<double> residual;
};

inline constexpr double kEffectRidge = 0.01;

SettingEffects fit_setting_effects(const RunLog& log);

// Solves (A + ridge I) x = b for a symmetric positive semi-definite A
// (Cholesky); A is n x n row-major. Exposed for tests.
std::vector<double> solve_ridge(std::vector<double> a, std::vector<double> b, double ridge);

}  // namespace kernelblaster::tuner
