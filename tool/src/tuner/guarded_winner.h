// The winner's second look times every recorded size. Where the winner's
// call is slower at some of them, the tuned source runs the launcher as
// written at exactly those shapes (shape_guard.h); that source is built and
// judged with fresh seeds at every size, timed at each but the validation
// sizes where it runs only the original's code, and kept when it is
// verified, slows no kernel and is faster than the original. The winner
// cleared --min-speedup already; the guarded source only takes back its
// slower shapes, so the bar is not asked of it twice: a second look's noise
// under the bar kept SGEMM_CUDA's kernel-10 winner unguarded, 5% slower at
// 128-1024 by the program's own figures (H200, 2026-11-29). Not faster than
// the original, the gain is not there without the slower shapes: the run
// keeps the original (below_floor). A winner
// composed group by group (focused_winner.h) is guarded group by group,
// each by its own look, and the guarded source judged on the whole harness,
// held to what the composition is held to (kWholeFloor).
//
// The guarded source takes one more build of the whole file (13-14 s for
// SGEMM_CUDA's runner.cu). It starts while the winner's second look runs,
// guessing the sizes that look will find slower: those the search timed
// slower, and every size it did not time. When the look agrees, that build
// is judged; else the source is built again.
#pragma once

#include <functional>
#include <future>
#include <string>

#include "judge/candidate_result.h"
#include "tuner/build_cache.h"
#include "tuner/config_space.h"
#include "tuner/engine_measurer.h"
#include "tuner/focused_winner.h"
#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// What a guarded source of one winner must reach: the original's speed.
inline constexpr double kGuardFloor = 1.0;

struct GuardedWinner {
  bool kept = false;
  // Judged, and not faster than the floor: the winner's gain is not there
  // once its slower shapes run as written; the run keeps the original.
  bool below_floor = false;
  std::string text;      // the guarded source, when kept
  CandidateResult look;  // its judgement, when it was judged
  // One phrase for the build line: where launchers run as written, or why
  // the slower shapes stay with the winner; "" when none was slower.
  std::string line;
};

// What a guarded source's look is judged against: the sizes where the
// winner was slower, the phrase for what runs as written there, the parts
// that could not be guarded, whether the look was the whole harness, and
// the speedup it must reach (kGuardFloor for one winner, kWholeFloor composed).
struct GuardedLook {
  std::string slower;
  std::string as_written;
  std::string stayed;  // "" when every part was guarded
  bool whole = false;
  double floor = kGuardFloor;
};

// The verdict on a guarded source (`text`) from its look: kept, not kept
// (the winner stays as it is, `line` says why), or below the floor.
GuardedWinner judge_guarded(const GuardedLook& guard, const CandidateResult& look, const std::string& text);

// A guarded source built ahead of the winner's look; empty when none was guessed.
struct GuardGuess {
  std::string text;
  std::shared_future<CandidateBuild> build;
};

// `searched`: the search's measurement of the winner (its timed sizes).
GuardGuess guess_guard(EngineMeasurer& measurer, const Configuration& winner, const SpaceDecl& decl,
                       const CandidateResult& searched);

// `progress` (may be empty) hears one line when a guarded source is judged.
using Progress = std::function<void(const std::string&)>;

GuardedWinner guard_winner(EngineMeasurer& measurer, const Configuration& winner, const SpaceDecl& decl,
                           const CandidateResult& believed, const GuardGuess& guess, int device, int seeds,
                           const Progress& progress);

GuardedWinner guard_composed(EngineMeasurer& measurer, const FocusedWinner& winner, const SpaceDecl& decl,
                             int device, int seeds, const Progress& progress);

}  // namespace kernelblaster::tuner
