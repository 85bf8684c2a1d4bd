// Moves a run has seen lose wherever it made them. The nearest-neighbour
// model scores a move from the best point by the points measured near the
// target; it does not see that the same move (one setting from the best's
// value to another) was made from other points and lost every time. On
// SGEMM_CUDA's kernel 12 (the H200 run of 2026-11-30, replayed) the walk
// made `BK=8` from eight points, about 10% slower each time, while the
// best lay two settings away untried.
//
// Each pair of verified points that differ in exactly one setting is one
// making of the move between their two values, in each direction. A move
// made at least `min_makings` times that lost every time (the later point
// slower) is a losing move, worth the mean of its log losses. A candidate
// is charged the worst losing move among those that take it away from the
// best point: the worst, not the sum, so a move of several settings at
// once (where settings interact, as pnpoly's method and tile size) pays no
// more than its worst part.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace kernelblaster::policy {

class LosingMoves {
 public:
  using Ranks = std::vector<std::uint16_t>;  // a point: each setting's value rank
  // `points`: the verified points; `y`: each one's log speedup.
  LosingMoves(const std::vector<Ranks>& points, const std::vector<double>& y, int min_makings);
  // The worst losing move among `to`'s changes from `from` (a log loss,
  // <= 0), or 0 when none of them is one.
  double charge(const Ranks& from, const Ranks& to) const;

 private:
  struct Move {
    int made = 0;
    int lost = 0;
    double sum = 0;  // of (log speedup after - before)
  };
  std::map<std::tuple<std::size_t, std::uint16_t, std::uint16_t>, Move> m_moves;  // (setting, from, to)
  int m_min_makings;
};

}  // namespace kernelblaster::policy
