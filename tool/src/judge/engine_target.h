// What both loops ask the engine to judge their candidates against: the
// original source with its harness, how it is compiled, and the engine's
// seeds, budget and deadlines. The tuner's EngineMeasurer
// (tuner/engine_measurer.h) and the optimize loop's EngineJudge
// (optimize/engine_judge.h) each hold one.
#pragma once

#include <string>
#include <vector>

#include "judge/candidate_build.h"
#include "judge/evaluator.h"

namespace kernelblaster {

struct EngineTarget {
  std::string source;        // the original, absolute
  std::string source_text;
  std::string harness;       // absolute
  // Tunables the harness reads too (it computes launch shapes with them,
  // tuner/replay_shapes.h): a candidate passes its values with -D.
  std::vector<std::string> harness_macros;
  CompileSettings compile;   // arch resolved; include dirs absolute, the source's own directory among them
  std::string work_dir;      // scratch root of this run, absolute
  std::string build_store;   // where the original's builds are kept across runs (BuildStore); "" none
  std::string lock_dir;
  int seeds = 3;
  double budget_ms = 300;
  double screen_budget_ms = 0;  // timed runs per size in a search's screen; 0: budget_ms
  double run_timeout_s = 60;
  double build_timeout_s = 300;
};

// The evaluation of two programs already built for `target`: the original's
// and a candidate's, on `device`, with the target's seeds, budget and deadlines.
EvalRequest prebuilt_request(const EngineTarget& target, const std::string& reference_binary,
                             const std::string& candidate_binary, int device);

}  // namespace kernelblaster
