#include "policy/tied_moves.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace kernelblaster::policy {
namespace {

// Squared lengths below this are zero: rank moves are integers, so a
// residual is either nothing or far larger.
constexpr double kZero = 1e-9;

double squared(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s;
}

TiedMoves::Ranks minus(const TiedMoves::Ranks& a, const TiedMoves::Ranks& b) {
  TiedMoves::Ranks d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

// Two residuals of one class: the same vector.
bool same_class(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s < kZero;
}

int steps(const TiedMoves::Ranks& a, const TiedMoves::Ranks& b) {
  int n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += std::abs(a[i] - b[i]);
  return n;
}

}  // namespace

TiedMoves::TiedMoves(const std::vector<Ranks>& verified, const std::vector<Ranks>& failed, std::size_t bases) {
  if (verified.empty()) return;
  m_dims = verified.front().size();
  std::set<Ranks> seen;
  for (std::size_t b = 0; b < std::min(bases, verified.size()); ++b)
    for (const Ranks& v : verified) {
      Ranks d = minus(v, verified[b]);
      if (std::all_of(d.begin(), d.end(), [](int x) { return x == 0; }) || !seen.insert(d).second) continue;
      add_to_span(d);
      m_moves.push_back(d);
      Ranks back = d;
      for (int& x : back) x = -x;
      if (seen.insert(back).second) m_moves.push_back(back);
    }
  if (!tied()) return;
  for (const Ranks& f : failed) {
    const Ranks* nearest = &verified.front();
    int nearest_steps = steps(f, *nearest);
    for (const Ranks& v : verified)
      if (const int n = steps(f, v); n < nearest_steps) nearest = &v, nearest_steps = n;
    std::vector<double> r = residual(minus(f, *nearest));
    if (squared(r) < kZero) continue;  // within the span: a range's end, not a tie
    const bool known =
        std::any_of(m_failed.begin(), m_failed.end(), [&](const std::vector<double>& g) { return same_class(r, g); });
    if (!known) m_failed.push_back(std::move(r));
  }
}

void TiedMoves::add_to_span(const Ranks& move) {
  if (m_basis.size() == m_dims) return;
  std::vector<double> r = residual(move);
  const double n = std::sqrt(squared(r));
  if (n * n < kZero) return;
  for (double& x : r) x /= n;
  m_basis.push_back(std::move(r));
}

std::vector<double> TiedMoves::residual(const Ranks& move) const {
  std::vector<double> r(move.begin(), move.end());
  for (const std::vector<double>& q : m_basis) {
    double dot = 0;
    for (std::size_t i = 0; i < r.size(); ++i) dot += r[i] * q[i];
    for (std::size_t i = 0; i < r.size(); ++i) r[i] -= dot * q[i];
  }
  return r;
}

bool TiedMoves::within(const Ranks& move) const { return squared(residual(move)) < kZero; }

bool TiedMoves::like_a_failure(const Ranks& move) const {
  const std::vector<double> r = residual(move);
  if (squared(r) < kZero) return false;
  return std::any_of(m_failed.begin(), m_failed.end(), [&](const std::vector<double>& g) { return same_class(r, g); });
}

}  // namespace kernelblaster::policy
