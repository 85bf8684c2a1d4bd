#include "policy/guided_search.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "policy/draws.h"

namespace kernelblaster::policy {
namespace {

// Numbers in numeric order when every value of the name is one, else text order.
std::vector<std::string> ordered_values(const std::set<std::string>& values) {
  std::vector<std::string> v(values.begin(), values.end());
  auto number = [](const std::string& s, double* out) {
    char* end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0';
  };
  double a = 0, b = 0;
  bool numeric = std::all_of(v.begin(), v.end(), [&](const std::string& s) { return number(s, &a); });
  if (numeric)
    std::stable_sort(v.begin(), v.end(), [&](const std::string& x, const std::string& y) {
      number(x, &a), number(y, &b);
      return a < b;
    });
  return v;
}

std::string rank_key(const std::vector<std::uint16_t>& rank) {
  return std::string(reinterpret_cast<const char*>(rank.data()), rank.size() * sizeof(std::uint16_t));
}

// The original's row: not an action id (ids are settings joined by ",").
constexpr const char* kOriginalId = "\x01original";
constexpr const char* kFlagPrefix = "flag ";

// A point's coordinates by name: the tunables as they are, and the flags
// ("flags" -> "-a -b") as one 0/1 coordinate each, so adding one flag is
// one step, as changing one tunable is.
std::map<std::string, std::string> coordinates(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : settings) {
    if (name != "flags") {
      out[name] = value;
      continue;
    }
    std::istringstream in(value);
    for (std::string flag; in >> flag;) out[kFlagPrefix + flag] = "1";
  }
  return out;
}

bool is_flag(const std::string& dim) { return dim.rfind(kFlagPrefix, 0) == 0; }

// What a step beyond a failed one loses in the walk's order: more than any
// KB prior gives (a log speedup), so such steps come after every other.
constexpr double kBeyondFailure = 10.0;

// What a setting of a technique the KB lists for the kernel's state, and
// has never measured, adds to a point's prior (a log speedup): 1%, less
// than a measured effect the KB tells from noise, more than nothing, so
// the walk's first steps are the state's techniques (vectorized access on
// a memory-bound kernel) before its own random order.
constexpr double kStatePrior = 0.01;

// A log speedup the walk counts as no gain over the original (1%): the
// spread of one configuration's measurements from run to run (log 1.01).
constexpr double kWalkNoise = 0.00995;

// The widest trust region, in steps: wider than any space's diameter.
constexpr int kWidestTrust = 1 << 20;

// The least spread of log speedups a tie's term is scaled by: before
// anything beside the original verifies, the spread is nothing.
constexpr double kTieFloor = 0.1;

// A tunable's coordinate spans [0, 1]; a flag's is 0 or this, one step of a
// tunable of five values: passing a flag is a small move, not the longest.
constexpr float kFlagStep = 0.25f;

}  // namespace

void GuidedSearch::build_encoding(const Context& ctx) {
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> rows;  // id, coordinates
  for (const Action& a : ctx.actions) rows.emplace_back(a.id, coordinates(a.settings));
  for (const HistoryEntry& h : ctx.history) rows.emplace_back(h.action_id, coordinates(h.settings));
  if (!ctx.original.empty()) rows.emplace_back(kOriginalId, coordinates(ctx.original));
  std::map<std::string, std::set<std::string>> values;
  std::map<std::string, std::size_t> present;
  for (const auto& [id, coords] : rows)
    for (const auto& [name, value] : coords) values[name].insert(value), ++present[name];
  // A coordinate a point lacks: a flag it does not pass ("0"), a tunable it
  // does not set ("", ranked first).
  for (auto& [name, vals] : values)
    if (is_flag(name)) vals.insert("0");
    else if (present[name] < rows.size()) vals.insert("");
  m_dims.clear(), m_rank.clear(), m_size.clear(), m_row.clear(), m_points.clear(), m_ids.clear(), m_by_rank.clear();
  for (const auto& [name, vals] : values) {
    m_dims.push_back(name);
    std::unordered_map<std::string, std::uint16_t> r;
    const std::vector<std::string> ordered = ordered_values(vals);
    for (std::size_t i = 0; i < ordered.size(); ++i) r[ordered[i]] = static_cast<std::uint16_t>(i);
    m_rank.push_back(std::move(r));
    m_size.push_back(static_cast<std::uint16_t>(ordered.size()));
  }
  for (const auto& [id, coords] : rows) {
    if (m_row.count(id)) continue;
    Point p;
    for (std::size_t d = 0; d < m_dims.size(); ++d) {
      auto it = coords.find(m_dims[d]);
      const std::uint16_t r = m_rank[d].at(it != coords.end() ? it->second : is_flag(m_dims[d]) ? "0" : "");
      p.rank.push_back(r);
      const float span = is_flag(m_dims[d]) ? kFlagStep : 1.0f;
      p.x.push_back(m_size[d] > 1 ? span * static_cast<float>(r) / static_cast<float>(m_size[d] - 1) : 0.0f);
    }
    m_row[id] = m_points.size();
    m_by_rank.emplace(rank_key(p.rank), m_points.size());
    m_points.push_back(std::move(p));
    m_ids.push_back(id);
  }
}

bool GuidedSearch::encode_all(const Context& ctx) {
  for (const Action& a : ctx.actions)
    if (!m_row.count(a.id)) return false;
  for (const HistoryEntry& h : ctx.history)
    if (!m_row.count(h.action_id)) return false;
  return ctx.original.empty() || m_row.count(kOriginalId);
}

std::vector<std::string> GuidedSearch::next(const Context& ctx) {
  if (ctx.actions.empty()) return {};
  // Failed tries count: they tell the model where not to go. Waiting for
  // `first_draws` verified ones kept the walk going for a hundred tries on
  // SGEMM_CUDA's kernels 5 and 6, whose spaces as the one line finds them
  // fail on 88-98% of their points (bench/sgemm_exhaustive).
  const bool local = static_cast<int>(ctx.history.size()) < m_options.first_draws;
  if (local && (ctx.original.empty() || !m_options.local_first)) return {};
  std::uint64_t state = draw_state(ctx.seed, "explore#" + std::to_string(ctx.history.size()));
  if (unit_draw(state) <= m_options.explore) return {};
  if (!encode_all(ctx)) build_encoding(ctx);
  if (m_dims.empty()) return {};
  return local ? local_picks(ctx) : model_picks(ctx);
}

// Before the model has enough to go on: the untried neighbours (one
// setting changed) of the best point measured so far, the original until
// something beats it, the KB's favourites first and the rest in the run's
// own random order; the next best point's when the best's are all tried.
// A step that failed (a wrong result, a crash) puts the steps beyond it, on
// the same setting in the same direction, last: a tile that no longer fits
// its threads at 16 does not at 32 either (SGEMM_CUDA's TM, TN, BM, BK).
std::vector<std::string> GuidedSearch::local_picks(const Context& ctx) {
  const Observations o = observe(ctx);
  const std::vector<std::size_t> elite = walk_centres(o, elites(o));
  for (std::size_t e : elite) {
    std::vector<std::pair<std::size_t, int>> failed_steps;  // (dimension, signed rank step) from e
    for (const Measured& m : o.measured)
      if (!m.verified)
        if (auto step = one_step(e, m.point)) failed_steps.push_back(*step);
    std::vector<std::pair<double, std::size_t>> scored;  // (score, point)
    for (std::size_t p : neighbours(e, o)) {
      const auto step = one_step(e, p);
      const bool beyond = step && std::any_of(failed_steps.begin(), failed_steps.end(), [&](const auto& f) {
        return f.first == step->first && (f.second > 0) == (step->second > 0) && std::abs(f.second) <= std::abs(step->second);
      });
      scored.push_back({o.prior[p] - (beyond ? kBeyondFailure : 0.0), p});
    }
    if (scored.empty()) continue;
    return best_of(ctx, scored);
  }
  // No setting of any elite can change alone: the moves constraints tie
  // together (two settings or more at once), nearest the best first.
  if (!elite.empty()) {
    std::vector<std::pair<double, std::size_t>> scored;
    for (std::size_t p : nearest_untried(elite.front(), o, kWidestTrust))
      scored.push_back({o.prior[p] - steps_between(elite.front(), p), p});
    if (!scored.empty()) return best_of(ctx, scored);
  }
  return {};
}

// The walk's centres, best first: the elites, except that those not faster
// than the original by more than kWalkNoise come after it (the elites are
// best first, so they stand just ahead of it). On an H200 (2026-11-29)
// vector_add's `-Xptxas=-dlcm=cg` measured 1.0003x, moved the walk's centre
// off the original, and `VEC_BYTES=16` waited a step.
std::vector<std::size_t> GuidedSearch::walk_centres(const Observations& o, std::vector<std::size_t> elite) const {
  auto original = m_row.find(kOriginalId);
  if (original == m_row.end()) return elite;
  auto at = std::find(elite.begin(), elite.end(), original->second);
  if (at == elite.end()) return elite;
  std::map<std::size_t, double> best_y;  // a point's best verified measurement
  for (const Measured& m : o.measured)
    if (m.verified) {
      auto [it, fresh] = best_y.emplace(m.point, m.y);
      if (!fresh) it->second = std::max(it->second, m.y);
    }
  auto first_noisy = std::find_if(elite.begin(), at, [&](std::size_t p) { return best_y.at(p) < kWalkNoise; });
  std::rotate(first_noisy, at, at + 1);
  return elite;
}

// The one setting `p` changes from `e` and by how many ranks; none when it
// changes none or several.
std::optional<std::pair<std::size_t, int>> GuidedSearch::one_step(std::size_t e, std::size_t p) const {
  std::optional<std::pair<std::size_t, int>> step;
  for (std::size_t d = 0; d < m_dims.size(); ++d) {
    const int diff = static_cast<int>(m_points[p].rank[d]) - static_cast<int>(m_points[e].rank[d]);
    if (diff == 0) continue;
    if (step) return std::nullopt;
    step = std::make_pair(d, diff);
  }
  return step;
}

// The untried points one setting away from `e`.
std::vector<std::size_t> GuidedSearch::neighbours(std::size_t e, const Observations& o) const {
  std::vector<std::size_t> out;
  std::vector<std::uint16_t> r = m_points[e].rank;
  for (std::size_t d = 0; d < m_dims.size(); ++d) {
    for (std::uint16_t v = 0; v < m_size[d]; ++v) {
      if (v == m_points[e].rank[d]) continue;
      r[d] = v;
      if (auto it = m_by_rank.find(rank_key(r)); it != m_by_rank.end() && o.untried[it->second])
        out.push_back(it->second);
    }
    r[d] = m_points[e].rank[d];
  }
  return out;
}

// Rank changes summed over the settings, from `a` to `b`.
int GuidedSearch::steps_between(std::size_t a, std::size_t b) const {
  int n = 0;
  for (std::size_t d = 0; d < m_dims.size(); ++d)
    n += std::abs(static_cast<int>(m_points[a].rank[d]) - static_cast<int>(m_points[b].rank[d]));
  return n;
}

// The untried points at most `at_most` steps from `e`, or, when none is,
// those nearest it: a constraint that ties settings together (SGEMM_CUDA's
// (BN/WN)·(BM/WM) warps) makes its moves two steps or more, never one
// setting, and leaves few points one setting away.
std::vector<std::size_t> GuidedSearch::nearest_untried(std::size_t e, const Observations& o, int at_most) const {
  std::vector<std::size_t> within, nearest;
  int nearest_steps = kWidestTrust;
  for (std::size_t p : o.untried_list) {
    const int n = steps_between(e, p);
    if (n <= at_most) {
      within.push_back(p);
    } else if (within.empty() && n <= nearest_steps) {
      if (n < nearest_steps) nearest.clear(), nearest_steps = n;
      nearest.push_back(p);
    }
  }
  return within.empty() ? nearest : within;
}

// The ids of the highest scores, ties in the run's own random order.
std::vector<std::string> GuidedSearch::best_of(const Context& ctx,
                                               const std::vector<std::pair<double, std::size_t>>& scored) const {
  std::vector<std::tuple<double, double, std::size_t>> keyed;  // (score, draw, point)
  for (const auto& [score, p] : scored) {
    std::uint64_t state = draw_state(ctx.seed, m_ids[p]);
    keyed.emplace_back(score, unit_draw(state), p);
  }
  const std::size_t n = std::min<std::size_t>(keyed.size(), static_cast<std::size_t>(std::max(1, m_options.picks)));
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(n), keyed.end(),
                    [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < n; ++i) ids.push_back(m_ids[std::get<2>(keyed[i])]);
  return ids;
}

// What the model learns from: each try of the history as a point and its
// log speedup, a try that did not verify a little worse than the worst
// that did. `untried` and `prior` (the KB's log prediction) per point.
GuidedSearch::Observations GuidedSearch::observe(const Context& ctx) const {
  Observations o;
  o.untried.assign(m_points.size(), 0);
  o.prior.assign(m_points.size(), 0.0);
  for (const Action& a : ctx.actions) {
    const std::size_t p = m_row.at(a.id);
    o.untried[p] = 1;
    o.untried_list.push_back(p);
    if (a.kb.predicted_speedup > 0 && std::isfinite(a.kb.predicted_speedup)) o.prior[p] = std::log(a.kb.predicted_speedup);
    o.prior[p] += kStatePrior * std::max(0, a.kb.helps_state);
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const HistoryEntry& h : ctx.history) {
    const bool ok = h.verified() && h.speedup > 0;
    // What it could be kept at: a try that slows one of the call's kernels
    // (SGEMM_CUDA's WNITER=2: 1.03x, 0.973x at 2048) leads nowhere useful.
    const double y = ok ? std::log(h.worth()) : std::numeric_limits<double>::quiet_NaN();
    o.measured.push_back({m_row.at(h.action_id), y, ok});
    if (ok) lo = std::min(lo, y), hi = std::max(hi, y);
  }
  // The original: measured by definition, speedup 1.
  if (auto it = m_row.find(kOriginalId); it != m_row.end() && !ctx.original.empty()) {
    o.measured.push_back({it->second, 0.0, true});
    lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  }
  for (Measured& m : o.measured)
    if (!m.verified) m.y = lo - 0.1;
  o.spread = std::isfinite(hi - lo) ? hi - lo : 0.0;
  return o;
}

// The best verified points, best first, at most `elites`.
std::vector<std::size_t> GuidedSearch::elites(const Observations& o) const {
  std::vector<const Measured*> best;
  for (const Measured& m : o.measured)
    if (m.verified) best.push_back(&m);
  std::sort(best.begin(), best.end(), [&](const Measured* a, const Measured* b) {
    return a->y != b->y ? a->y > b->y : m_ids[a->point] < m_ids[b->point];
  });
  std::vector<std::size_t> out;
  for (const Measured* m : best)
    if (static_cast<int>(out.size()) < m_options.elites && std::find(out.begin(), out.end(), m->point) == out.end())
      out.push_back(m->point);
  return out;
}

// The untried points worth scoring: each elite with one setting changed to
// any of its values, crosses of two elites, and a few drawn at random.
std::vector<std::size_t> GuidedSearch::candidates(const Context& ctx, const Observations& o,
                                                  const std::vector<std::size_t>& elite) const {
  const std::size_t dims = m_dims.size();
  std::vector<std::size_t> pool;
  std::vector<char> pooled(m_points.size(), 0);
  auto add = [&](std::size_t p) {
    if (o.untried[p] && !pooled[p]) pooled[p] = 1, pool.push_back(p);
  };
  auto offer = [&](const std::vector<std::uint16_t>& rank) {
    if (auto it = m_by_rank.find(rank_key(rank)); it != m_by_rank.end()) add(it->second);
  };
  for (std::size_t e : elite)
    for (std::size_t p : neighbours(e, o)) add(p);
  // The best's moves of two settings at once: those a constraint ties
  // together (SGEMM_CUDA's BN with WN, BM with WM) are never one setting.
  if (!elite.empty())
    for (std::size_t p : nearest_untried(elite.front(), o, 2))
      if (!one_step(elite.front(), p)) add(p);
  std::uint64_t rng = draw_state(ctx.seed, "pool#" + std::to_string(ctx.history.size()));
  for (int c = 0; c < m_options.crosses && elite.size() > 1; ++c) {
    const std::size_t a = elite[splitmix64(rng) % elite.size()], b = elite[splitmix64(rng) % elite.size()];
    if (a == b) continue;
    std::vector<std::uint16_t> r(dims);
    for (std::size_t d = 0; d < dims; ++d) r[d] = (splitmix64(rng) & 1) ? m_points[a].rank[d] : m_points[b].rank[d];
    offer(r);
  }
  for (int k = 0; k < m_options.random_points && !o.untried_list.empty(); ++k)
    add(o.untried_list[splitmix64(rng) % o.untried_list.size()]);
  return pool;
}

// Predicted log speedup (inverse-square-distance mean of the k nearest
// measured points), plus the bonus for distance, plus the KB's prior.
double GuidedSearch::score(std::size_t p, const Observations& o, std::vector<std::pair<double, double>>& near) const {
  near.resize(o.measured.size());
  for (std::size_t i = 0; i < o.measured.size(); ++i) {
    double s = 0;
    for (std::size_t d = 0; d < m_dims.size(); ++d) {
      const double diff = m_points[p].x[d] - m_points[o.measured[i].point].x[d];
      s += diff * diff;
    }
    near[i] = {std::sqrt(s), o.measured[i].y};
  }
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, m_options.neighbours)), near.size());
  std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());
  double wsum = 0, ysum = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double w = 1.0 / ((near[i].first + 1e-3) * (near[i].first + 1e-3));
    wsum += w, ysum += w * near[i].second;
  }
  return ysum / wsum + m_options.distance_bonus * std::min(near[0].first, m_options.bonus_radius) * o.spread +
         o.prior[p];
}

// How far from the best point the model may pick now, in steps (rank
// changes summed over the settings): a trust region, replayed from the
// history so a run's picks depend on what it measured alone. It starts at
// `trust_steps`; a model pick that beats the best so far twice in a row
// doubles it, `trust_failures` in a row that do not halve it (never under
// two steps). A hand-tuned original's far corners are slow (SGEMM_CUDA's
// kernel 10: 0.01x-0.7x): after a few of them the search crosses the
// author's neighbours instead; where far points keep winning (a space whose
// original is its median) the region keeps growing.
int GuidedSearch::trust_region(const Context& ctx) const {
  int radius = m_options.trust_steps, tries = 0, wins = 0, misses = 0;
  double best = ctx.original.empty() ? 0.0 : 1.0;
  for (const HistoryEntry& h : ctx.history) {
    const bool ok = h.verified() && h.speedup > 0;
    const bool modelled = tries++ >= m_options.first_draws;
    const bool win = ok && h.worth() > best;
    if (win) best = h.worth();
    if (!modelled) continue;
    wins = win ? wins + 1 : 0;
    misses = win ? 0 : misses + 1;
    if (wins >= 2) radius = std::min(2 * radius, kWidestTrust), wins = 0;
    if (misses >= m_options.trust_failures) radius = std::max(2, radius / 2), misses = 0;
  }
  return radius;
}

// Whether most of the run's tries failed: where ties are worth looking
// for (SGEMM_CUDA's kernels fail on 66-98% of their points). Where few
// fail, the verified moves leave directions unspanned only because few
// were made, and favouring their span narrows the search (gemm RTX 3090
// of bench/kt_replay, no failure at all: 1.000 -> 1.019 at 200).
bool GuidedSearch::failure_heavy(const Observations& o) const {
  const auto failed = std::count_if(o.measured.begin(), o.measured.end(), [](const Measured& m) { return !m.verified; });
  return failed > 0 && 2 * failed >= static_cast<std::ptrdiff_t>(o.measured.size());
}

// The run's verified points (best first) and failed tries as rank vectors,
// for what they say about settings tied together (tied_moves.h).
TiedMoves GuidedSearch::tied_moves(const Observations& o, const std::vector<std::size_t>& elite) const {
  std::vector<TiedMoves::Ranks> verified, failed;
  std::vector<char> listed(m_points.size(), 0);
  auto ranks = [&](std::size_t p) { return TiedMoves::Ranks(m_points[p].rank.begin(), m_points[p].rank.end()); };
  for (std::size_t e : elite) verified.push_back(ranks(e)), listed[e] = 1;
  for (const Measured& m : o.measured)
    if (!listed[m.point]) {
      listed[m.point] = 1;
      (m.verified ? verified : failed).push_back(ranks(m.point));
    }
  return TiedMoves(verified, failed);
}

// Where a constraint ties settings: the best point's moves that the run has
// seen verify, made again from it, and its untried points three steps
// away (a tie of three settings, as BM, BN and BK).
void GuidedSearch::offer_tied_moves(const TiedMoves& tied, std::size_t best, const Observations& o,
                                    std::vector<std::size_t>& pool) const {
  std::set<std::size_t> pooled(pool.begin(), pool.end());
  auto add = [&](std::size_t p) {
    if (o.untried[p] && pooled.insert(p).second) pool.push_back(p);
  };
  std::vector<std::uint16_t> r(m_dims.size());
  for (const TiedMoves::Ranks& move : tied.moves()) {
    bool inside = true;
    for (std::size_t d = 0; d < m_dims.size() && inside; ++d) {
      const int v = static_cast<int>(m_points[best].rank[d]) + move[d];
      inside = v >= 0 && v < m_size[d];
      r[d] = static_cast<std::uint16_t>(std::max(0, v));
    }
    if (inside)
      if (auto it = m_by_rank.find(rank_key(r)); it != m_by_rank.end()) add(it->second);
  }
  for (std::size_t p : nearest_untried(best, o, 3))
    if (!one_step(best, p)) add(p);
}

// The tie's word on a move from the best: in the span of the verified
// moves, up; of a class that failed, down; otherwise nothing.
double GuidedSearch::tie_term(const TiedMoves& tied, std::size_t best, std::size_t p, double spread) const {
  if (!tied.tied()) return 0.0;
  TiedMoves::Ranks move(m_dims.size());
  for (std::size_t d = 0; d < m_dims.size(); ++d)
    move[d] = static_cast<int>(m_points[p].rank[d]) - static_cast<int>(m_points[best].rank[d]);
  const double weight = m_options.tie_weight * std::max(spread, kTieFloor);
  return tied.within(move) ? weight : tied.like_a_failure(move) ? -weight : 0.0;
}

// The run's verified points as rank vectors, for the moves that lost
// wherever they were made (losing_moves.h).
LosingMoves GuidedSearch::losing_moves(const Observations& o) const {
  std::vector<LosingMoves::Ranks> points;
  std::vector<double> y;
  if (m_options.losing_weight > 0)
    for (const Measured& m : o.measured)
      if (m.verified) points.push_back(m_points[m.point].rank), y.push_back(m.y);
  return LosingMoves(points, y, std::max(1, m_options.losing_makings));
}

std::vector<std::string> GuidedSearch::model_picks(const Context& ctx) {
  const Observations o = observe(ctx);
  const std::vector<std::size_t> elite = elites(o);
  const int radius = trust_region(ctx);
  std::vector<std::pair<double, std::size_t>> scored, outside;  // (score, point)
  std::vector<std::pair<double, double>> near;
  std::vector<std::size_t> pool = candidates(ctx, o, elite);
  const TiedMoves tied =
      elite.empty() || m_options.tie_weight <= 0 || !failure_heavy(o) ? TiedMoves({}, {}) : tied_moves(o, elite);
  if (tied.tied()) offer_tied_moves(tied, elite.front(), o, pool);
  const LosingMoves losing = losing_moves(o);
  for (std::size_t p : pool) {
    const double tie = elite.empty() ? 0.0 : tie_term(tied, elite.front(), p, o.spread);
    const double lost =
        elite.empty() ? 0.0 : m_options.losing_weight * losing.charge(m_points[elite.front()].rank, m_points[p].rank);
    // A move of a class that failed is never within reach: once the region
    // holds nothing else, the untried classes three steps away (SGEMM_CUDA's
    // kernel 8: BM, BN and BK together) score above the failed ones outside.
    const int reach = tie < 0 ? -1 : radius;
    (elite.empty() || steps_between(elite.front(), p) <= reach ? scored : outside).push_back({score(p, o, near) + tie + lost, p});
  }
  // Nothing the pool offers within reach: the untried points nearest the
  // best join the far ones it offers (a tuned original's far corners crawl: 0.02x).
  if (scored.empty() && !elite.empty()) {
    std::set<std::size_t> offered;
    for (const auto& [s, p] : outside) offered.insert(p);
    for (std::size_t p : nearest_untried(elite.front(), o, radius))
      if (!offered.count(p)) outside.push_back({score(p, o, near), p});
  }
  return best_of(ctx, scored.empty() ? outside : scored);
}

}  // namespace kernelblaster::policy
