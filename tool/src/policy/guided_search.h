// The default policy's learning half: once a run has measured enough, the
// next picks come from a model of this run's own measurements instead of a
// weighted draw. Before that, where the run has an original (the source as
// its author wrote it), the picks walk its neighbourhood: one setting of
// the best point so far changed, the KB's favourites first, the steps
// beyond a failed step on the same setting last.
//
// Each action is a point: one coordinate per setting name (every tunable,
// and "flags" as one more), its value's rank among that name's values
// (numbers in numeric order) scaled to [0, 1]. The model predicts an
// untried point's log speedup from the measured points nearest to it
// (k nearest, weighted by inverse squared distance; a try that was not
// verified counts as a little worse than the worst verified one). The
// points scored are few, so a pick costs the same on a space of 20 points
// as on one of 20,000: the untried neighbours of the best measured points
// (one setting changed to any of its values), crosses of two of them (each
// setting from either), and a few untried points drawn at random. The
// score is the prediction plus a bonus for distance from everything
// measured (room for surprise; it stops growing past `bonus_radius`), plus
// the KB's predicted log speedup where the KB knows the action (warm start
// across kernels). The model picks within a trust region around the best
// point measured (trust_region() in the .cc): it widens while its picks
// win and narrows while they do not, so one slow far corner (SGEMM_CUDA's
// kernel 10 has many) does not send every later pick to another.
//
// A move (one setting from one value to another) that the run made from
// several points and that lost every time is charged to the picks that
// make it from the best (losing_moves.h): SGEMM_CUDA's kernel 12 replayed
// from its H200 run, 17 -> 20 seeds of 20 within 2% at the run's 121
// evaluations; kernel 10, 24 -> 30 of 30 at 200.
//
// Where most tries fail, the moves between verified points tell which
// settings a hidden constraint ties together (tied_moves.h): moves they
// span score up, moves of a class that failed score down and leave the
// trust region, and the best's untried points three steps away join the
// pool (SGEMM_CUDA's kernel 8 replayed, 30 seeds: its best on 0 seeds at
// 100 evaluations before, on 30 after).
//
// On the five brute-force recordings of bench/kt_replay (4,092 to 17,956
// configurations) this comes, at 200 evaluations, as close to the optimum
// as the best of Kernel Tuner's strategies on most of them
// (bench/kt_replay/results/summary.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policy/policy.h"
#include "policy/losing_moves.h"
#include "policy/tied_moves.h"

namespace kernelblaster::policy {

struct GuidedSearchOptions {
  int first_draws = 10;      // measurements, failed ones included, before the model leads
  double explore = 0.05;     // share of picks left to the weighted draw
  int elites = 8;            // best points whose neighbourhoods are scored
  int neighbours = 8;        // k of the nearest-neighbour model
  int crosses = 20;          // crosses of two elites tried per pick
  int random_points = 32;    // untried points drawn at random per pick
  double distance_bonus = 0.5;  // times the measured spread of log speedup
  double bonus_radius = 0.75;   // the distance past which the bonus grows no more
  int trust_steps = 4;          // the model's first reach from the best point, in steps
  int trust_failures = 4;       // model picks in a row that beat nothing before the reach halves
  double tie_weight = 1.0;   // times the spread: a move the verified ones span, up; a failed class, down
  double losing_weight = 1.5;  // times a losing move's mean log loss (losing_moves.h), charged to a pick
  int losing_makings = 3;      // makings, all lost, that make a move a losing one
  int picks = 16;            // ids returned, best first: the loop prepares those after the first (a
                             // compile of 12-15 s behind a 5-s measurement needs several in flight)
  // With an original (Context::original): before the model leads, walk the
  // neighbourhood of the best point so far instead of drawing.
  bool local_first = true;
};

class GuidedSearch {
 public:
  explicit GuidedSearch(GuidedSearchOptions options = {}) : m_options(options) {}
  // The next picks, best first; empty when the draw should choose (too few
  // measurements yet, an exploring turn, or nothing to model).
  std::vector<std::string> next(const Context& ctx);

 private:
  struct Point {
    std::vector<std::uint16_t> rank;  // per dimension
    std::vector<float> x;             // rank scaled to [0, 1]
  };
  // Gives every action and every history entry its point; false when a
  // name or value appears that the current encoding lacks (then rebuilt).
  bool encode_all(const Context& ctx);
  void build_encoding(const Context& ctx);

  struct Measured {
    std::size_t point;
    double y;       // log speedup (a failed try: a little below the worst verified)
    bool verified;
  };
  struct Observations {
    std::vector<Measured> measured;
    std::vector<char> untried;             // per point
    std::vector<std::size_t> untried_list;
    std::vector<double> prior;             // per point: the KB's log predicted speedup
    double spread = 0;                     // of the verified log speedups
  };
  Observations observe(const Context& ctx) const;
  std::vector<std::size_t> elites(const Observations& o) const;
  std::vector<std::size_t> walk_centres(const Observations& o, std::vector<std::size_t> elite) const;
  std::vector<std::size_t> candidates(const Context& ctx, const Observations& o, const std::vector<std::size_t>& elite) const;
  double score(std::size_t point, const Observations& o, std::vector<std::pair<double, double>>& near) const;
  std::vector<std::string> model_picks(const Context& ctx);
  bool failure_heavy(const Observations& o) const;
  TiedMoves tied_moves(const Observations& o, const std::vector<std::size_t>& elite) const;
  LosingMoves losing_moves(const Observations& o) const;
  void offer_tied_moves(const TiedMoves& tied, std::size_t best, const Observations& o,
                        std::vector<std::size_t>& pool) const;
  double tie_term(const TiedMoves& tied, std::size_t best, std::size_t p, double spread) const;
  int trust_region(const Context& ctx) const;
  std::vector<std::string> local_picks(const Context& ctx);
  std::vector<std::size_t> neighbours(std::size_t point, const Observations& o) const;
  int steps_between(std::size_t a, std::size_t b) const;
  std::vector<std::size_t> nearest_untried(std::size_t point, const Observations& o, int at_most) const;
  std::optional<std::pair<std::size_t, int>> one_step(std::size_t from, std::size_t to) const;
  std::vector<std::string> best_of(const Context& ctx, const std::vector<std::pair<double, std::size_t>>& scored) const;

  GuidedSearchOptions m_options;
  std::vector<std::string> m_dims;                                     // setting names
  std::vector<std::unordered_map<std::string, std::uint16_t>> m_rank;  // per dimension: value -> rank
  std::vector<std::uint16_t> m_size;                                   // values per dimension
  std::unordered_map<std::string, std::size_t> m_row;                  // action id -> point
  std::vector<Point> m_points;
  std::vector<std::string> m_ids;                                      // point -> action id
  std::unordered_map<std::string, std::size_t> m_by_rank;              // rank vector -> point
};

}  // namespace kernelblaster::policy
