#include "tuner/setting_effects.h"

#include <cmath>

#include "tuner/config_space.h"

namespace kernelblaster::tuner {

std::vector<double> solve_ridge(std::vector<double> a, std::vector<double> b, double ridge) {
  const std::size_t n = b.size();
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] += ridge;
  // In-place Cholesky, A = L L^T (lower triangle), then two triangular solves.
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    d = std::sqrt(std::max(d, 1e-12));
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
  return b;
}

SettingEffects fit_setting_effects(const RunLog& log) {
  SettingEffects out;
  out.residual.assign(log.evaluations.size(), 0.0);
  // The design: one column per setting key seen in a verified evaluation.
  std::map<std::string, std::size_t> column;
  std::vector<std::vector<std::size_t>> rows(log.evaluations.size());
  std::vector<bool> used(log.evaluations.size(), false);
  for (std::size_t i = 0; i < log.evaluations.size(); ++i) {
    const EvaluationRecord& r = log.evaluations[i];
    if (r.status != Status::ok || !std::isfinite(r.speedup) || r.speedup <= 0) continue;
    used[i] = true;
    for (const Setting& s : make_configuration(log.tunables, r.settings, r.flags).settings) {
      auto [it, added] = column.emplace(s.key(), column.size());
      rows[i].push_back(it->second);
      ++out.support[s.key()];
    }
  }
  const std::size_t p = column.size();
  if (p == 0) return out;
  // Normal equations X^T X beta = X^T y with 0/1 rows.
  std::vector<double> xtx(p * p, 0.0), xty(p, 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!used[i]) continue;
    double y = std::log(log.evaluations[i].speedup);
    for (std::size_t a : rows[i]) {
      xty[a] += y;
      for (std::size_t b : rows[i]) xtx[a * p + b] += 1.0;
    }
  }
  std::vector<double> beta = solve_ridge(std::move(xtx), std::move(xty), kEffectRidge);
  for (const auto& [key, j] : column) out.log_effect[key] = beta[j];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!used[i]) continue;
    double fitted = 0;
    for (std::size_t a : rows[i]) fitted += beta[a];
    out.residual[i] = std::log(log.evaluations[i].speedup) - fitted;
  }
  return out;
}

}  // namespace kernelblaster::tuner
