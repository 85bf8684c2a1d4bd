// How far the original is from an oracle and from itself, and the
// tolerances a candidate is held to as a result.
//
// Native harnesses have no oracle: the original is the reference and the
// declared (dtype-default) tolerances apply, widened only where the
// original disagrees with itself on the same inputs. KernelBench drivers
// bring an oracle (torch's result for the same inputs), and the original
// (init.cu) may compute in its own order or precision, so it is not exactly
// torch's answer. A candidate must then be
//   (A) close to the original: within the declared tolerance, widened to
//       (F+1) times the original's distance from the oracle (rel L2), and
//       per element by F times |original - oracle| at that element;
//   (B) no further from the oracle than the original is: within the declared
//       tolerance, widened to F times the original's distance (rel L2) and
//       per element by F times |original - oracle|,
// with F = kOracleFactor. Zeros, constants and lowered precision stay far
// outside both: their rel L2 is near 1, or a dtype's rounding step above
// an original that is exact to a few ulps.
#pragma once

#include <string>
#include <vector>

#include "common/protocol.h"

namespace kernelblaster {

inline constexpr double kOracleFactor = 2.0;

struct OutputCalibration {
  std::string output;
  ToleranceSpec declared;
  bool has_oracle = false;
  double oracle_rel_l2 = 0;   // the original against the oracle, worst run
  double spread_rel_l2 = 0;   // the original against its first run on the same inputs, worst run
  double spread_excess = 0;   // that spread's worst element, in units of the declared allowance
  ToleranceSpec vs_original;  // what a candidate may differ from the original
  ToleranceSpec vs_oracle;    // what a candidate may differ from the oracle
  double slack_factor = 0;    // per element: slack_factor * |original - oracle| on top
};

struct Calibration {
  std::vector<OutputCalibration> outputs;
  // Non-empty when the original itself fails: elements it leaves unwritten
  // or non-finite where the oracle is finite, or the input program's own
  // check rejecting it. One line with the evidence.
  std::string original_problem;
  const OutputCalibration* find(const std::string& output) const;
};

// From the original's report and dumps (the reference process).
Calibration calibrate(const HarnessReport& reference, const std::string& reference_dir);

}  // namespace kernelblaster
