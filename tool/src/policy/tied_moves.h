// Settings a hidden constraint ties together, learned from a run's own
// measurements. SGEMM_CUDA's kernel 8 verifies only where BM == BN and
// BK·TM·TN == 4·BN (one float4 of A and of B per thread per tile), and no
// static_assert says so: every single-setting move fails, the moves that
// verify change two or three settings at once, and 29 of its 1,524 points
// verify. A nearest-neighbour model scores such moves by the failed
// single steps around them and seldom tries them.
//
// Points are rank vectors (one rank per setting). Where constraints are
// equalities between settings (in rank, i.e. log2 for powers of two), the
// moves between verified points span the directions the constraints
// leave free, and a move in that span verifies wherever the ranges allow.
// A move outside it is judged by its class modulo the span: a class that
// failed once (BK alone, or TM alone: the same class once TM-up-TN-down
// has verified) is likely to fail again; a class never tried is unknown.
// Where the verified moves span every setting (no equality ties them, as
// in most spaces), every move is within the span and nothing changes.
#pragma once

#include <cstddef>
#include <vector>

namespace kernelblaster::policy {

class TiedMoves {
 public:
  using Ranks = std::vector<int>;
  // `verified`: the verified points (the original among them), best first;
  // `failed`: the tries that did not verify. Moves are taken from the best
  // `bases` verified points to every verified point.
  TiedMoves(const std::vector<Ranks>& verified, const std::vector<Ranks>& failed, std::size_t bases = 4);

  // The verified moves leave some direction unspanned: a constraint may tie settings.
  bool tied() const { return m_basis.size() < m_dims && !m_moves.empty(); }
  // A move in the span of the verified ones.
  bool within(const Ranks& move) const;
  // A move of a class (modulo the span) that some failed try made from its
  // nearest verified point.
  bool like_a_failure(const Ranks& move) const;
  // The distinct verified moves, both ways: those worth making again from the best.
  const std::vector<Ranks>& moves() const { return m_moves; }

 private:
  std::vector<double> residual(const Ranks& move) const;
  void add_to_span(const Ranks& move);

  std::size_t m_dims = 0;
  std::vector<std::vector<double>> m_basis;  // orthonormal
  std::vector<Ranks> m_moves;
  std::vector<std::vector<double>> m_failed;  // residuals of failed moves, distinct
};

}  // namespace kernelblaster::policy
