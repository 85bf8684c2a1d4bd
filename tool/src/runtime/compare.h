// The comparison math of "verified": a candidate's output against the
// reference's, element by element and as a whole. Host-only, unit-tested.
#pragma once

#include <cstdint>
#include <string>

#include "common/protocol.h"
#include "kernelblaster/dtype.h"

namespace kernelblaster {

// How far one output is from the reference (what compare_output measures).
struct OutputError {
  std::string output;
  double rel_l2 = 0;
  double max_abs = 0;
  double worst_excess = 0;     // max over elements of |d| / (atol*scale + rtol*|ref|)
  long long mismatched = 0;    // elements outside the elementwise tolerance
  long long nonfinite_mismatch = 0;
  long long unwritten = 0;
  long long first_bad = -1;
};

// The harness runtime's element types (kernelblaster/dtype.h), under the name the comparison uses.
using ElementType = DType;

// IEEE half and bfloat16 to float, done here so the tool needs no CUDA headers.
float half_to_float(std::uint16_t h);
float bfloat16_to_float(std::uint16_t b);
double element_value(ElementType t, const unsigned char* p);

struct OutputView {
  ElementType type = ElementType::f32;
  const unsigned char* data = nullptr;
  std::int64_t count = 0;
};

// Extra allowance per element: `factor` * |a[i] - b[i]| (nothing where
// either is not finite). With a = the original's output and b = an oracle's,
// a candidate may differ wherever the original itself differs from the
// oracle, by up to `factor` times as much.
struct ElementSlack {
  OutputView a, b;
  double factor = 0;
};

// Compares `candidate` to `reference` (same count; the element types may
// differ). Elements whose bytes all equal `poison_byte` while the
// reference's do not are counted as unwritten. NaN and Inf pass only where
// the reference has the same. An element's allowance is
// atol * rms(reference) + rtol * |reference| (+ the slack, when given).
OutputError compare_output(const std::string& name, const OutputView& reference, const OutputView& candidate,
                           const ToleranceSpec& tol, std::uint8_t poison_byte, const ElementSlack* slack = nullptr);

// torch::allclose's rule, element by element: |candidate - reference| <=
// atol + rtol * |reference|, NaN equal to NaN only with `equal_nan`, an
// infinity only to the same infinity. Returns the elements that break it.
std::int64_t allclose_failures(const OutputView& reference, const OutputView& candidate, double rtol, double atol,
                               bool equal_nan);

// Elements whose bytes are those isolation writes over memory a launcher
// was not given (kScrubWord, protocol.h), for element types of 2, 4 or 8
// bytes (a 1-byte element can hold them by chance).
std::int64_t scrub_pattern_elements(const OutputView& v);

// Whether an error report is within tolerance.
bool within_tolerance(const OutputError& e, const ToleranceSpec& tol);

// Close to the reference but outside tolerance: the signature of a
// computation done in lower precision than declared.
bool merely_inaccurate(const OutputError& e, const ToleranceSpec& tol);

}  // namespace kernelblaster
