#include "policy/losing_moves.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace kernelblaster::policy {
namespace {

// The point with setting `d` left out, as bytes: points with the same key
// differ in `d` alone (or not at all).
std::string without(LosingMoves::Ranks r, std::size_t d) {
  r[d] = 0xffff;
  return std::string(reinterpret_cast<const char*>(r.data()), r.size() * sizeof(std::uint16_t));
}

}  // namespace

// Bucketing by each setting left out finds the one-setting pairs in time
// linear in the points (plus the pairs), not quadratic.
LosingMoves::LosingMoves(const std::vector<Ranks>& points, const std::vector<double>& y, int min_makings)
    : m_min_makings(min_makings) {
  const std::size_t dims = points.empty() ? 0 : points.front().size();
  for (std::size_t d = 0; d < dims; ++d) {
    std::unordered_map<std::string, std::vector<std::size_t>> alike;
    for (std::size_t i = 0; i < points.size() && i < y.size(); ++i) alike[without(points[i], d)].push_back(i);
    for (const auto& [key, group] : alike)
      for (std::size_t i : group)
        for (std::size_t j : group) {
          if (points[i][d] == points[j][d]) continue;
          Move& m = m_moves[{d, points[i][d], points[j][d]}];
          ++m.made;
          m.lost += y[j] < y[i];
          m.sum += y[j] - y[i];
        }
  }
}

double LosingMoves::charge(const Ranks& from, const Ranks& to) const {
  double worst = 0;
  for (std::size_t d = 0; d < from.size() && d < to.size(); ++d) {
    if (from[d] == to[d]) continue;
    auto it = m_moves.find({d, from[d], to[d]});
    if (it == m_moves.end() || it->second.made < m_min_makings || it->second.lost < it->second.made) continue;
    worst = std::min(worst, it->second.sum / it->second.made);
  }
  return worst;
}

}  // namespace kernelblaster::policy
