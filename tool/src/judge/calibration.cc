#include "judge/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>

#include "runtime/compare.h"
#include "judge/dumps.h"

namespace kernelblaster {
namespace {

std::string run_label(const HarnessReport& r, const RunReport& run) {
  std::string size = run.size >= 0 && run.size < static_cast<int>(r.sizes.size()) ? r.sizes[run.size].label : "?";
  return "run " + std::to_string(run.index) + " (size " + size + ", seed " + std::to_string(run.seed) + ")";
}

std::string original_against_oracle(const std::string& output, const OutputError& e, const std::string& where) {
  char buf[320];
  if (e.unwritten > 0)
    std::snprintf(buf, sizeof buf, "the original leaves %lld elements of '%s' unwritten in %s (first at %lld)",
                  e.unwritten, output.c_str(), where.c_str(), e.first_bad);
  else
    std::snprintf(buf, sizeof buf,
                  "the original gives %lld non-finite values of '%s' where the oracle does not (or the reverse) "
                  "in %s (first at %lld)",
                  e.nonfinite_mismatch, output.c_str(), where.c_str(), e.first_bad);
  return buf;
}

// Whether no element of `v` is a finite number: every one NaN, infinite or
// the poison the runtime filled it with. Such an output of the original
// says nothing a candidate's could be checked against (NaN matches NaN):
// SGEMM_CUDA's launchers compute C = alpha*A*B + beta*C, and with C
// declared an output only, its poisoned (NaN) contents made every
// candidate's C "equal" to the original's, a wrong one included.
bool nothing_finite(const OutputView& v) {
  const std::size_t w = dtype_size(v.type);
  for (std::int64_t i = 0; i < v.count; ++i)
    if (std::isfinite(element_value(v.type, v.data + static_cast<std::size_t>(i) * w))) return false;
  return v.count > 0;
}

std::string nothing_to_compare(const std::string& output, const std::string& where) {
  return "every element of '" + output + "' the original left in " + where +
         " is NaN, infinite or unwritten: nothing to check a candidate against (an output the launcher also reads, "
         "as C in beta * C, must be declared inout so it starts from seeded values)";
}

// How far an original may disagree with itself on the same inputs (rel
// L2) and still be the reference: ten times the declared tolerance, at
// least 1%. Atomics summing in another order move a float output by a few
// ulps (rel L2 about 1e-6 in f32, 1e-3 in f16); SGEMM_CUDA's kernel 11,
// whose 256-column tiles overrun a 128-column C into the next row's
// elements (an H200, 2026-11-30), moved it by 0.097. Widening the
// tolerances by such a spread would pass a candidate 10% off. Of the 184
// KernelBench problems run against themselves on an H100
// (bench/results/kernelbench-dataset), the largest spread of an original
// judged sound was 0.0082 (level2/036, a transposed convolution with
// atomics); the two above the bound were refused for other causes already.
double disagreement_bound(const ToleranceSpec& declared) { return std::max(10 * declared.rel_l2, 1e-2); }

std::string disagrees_with_itself(const std::string& output, const OutputError& e, const std::string& a,
                                  const std::string& b) {
  char buf[480];
  std::snprintf(buf, sizeof buf,
                "the original's '%s' differs between two runs on the same inputs (%s and %s: rel L2 %.3g, %lld "
                "elements beyond the declared tolerance, first at %lld): a data race, or writes past a tile into "
                "elements other threads own; no candidate can be judged against it",
                output.c_str(), a.c_str(), b.c_str(), e.rel_l2, e.mismatched, e.first_bad);
  return buf;
}

}  // namespace

const OutputCalibration* Calibration::find(const std::string& output) const {
  for (const OutputCalibration& c : outputs)
    if (c.output == output) return &c;
  return nullptr;
}

Calibration calibrate(const HarnessReport& ref, const std::string& dir) {
  Calibration cal;
  for (const BufferDecl& b : ref.buffers) {
    if (b.role != "output" && b.role != "inout") continue;
    OutputCalibration c;
    c.output = b.name;
    c.declared = b.tolerance;
    cal.outputs.push_back(c);
  }
  for (const RunReport& run : ref.runs)
    if (run.driver_verdict == DriverVerdict::failed && cal.original_problem.empty())
      cal.original_problem = "the original fails the input program's own check in " + run_label(ref, run) +
                             (run.driver_detail.empty() ? "" : ": " + run.driver_detail);

  for (OutputCalibration& c : cal.outputs) {
    // Runs left per (size, seed): an output is held in memory only while a
    // later run on the same inputs still has to be compared with it. Each
    // dump is read once (outputs run to hundreds of MB).
    std::map<std::pair<int, std::uint64_t>, int> left;
    for (const RunReport& run : ref.runs) ++left[{run.size, run.seed}];
    std::map<std::pair<int, std::uint64_t>, std::pair<const RunReport*, LoadedDump>> first;
    for (const RunReport& run : ref.runs) {
      const std::pair<int, std::uint64_t> key{run.size, run.seed};
      const int later = --left[key];
      const OutputDump* o = find_dump(run.outputs, c.output);
      if (!o) continue;
      LoadedDump od = load_dump(ref, dir, *o);
      if (cal.original_problem.empty() && nothing_finite(od.view()))
        cal.original_problem = nothing_to_compare(c.output, run_label(ref, run));
      // The original against the oracle.
      if (const OutputDump* t = find_dump(run.oracle, c.output)) {
        c.has_oracle = true;
        LoadedDump td = load_dump(ref, dir, *t);
        OutputError e = compare_output(c.output, td.view(), od.view(), c.declared, od.poison);
        if ((e.unwritten > 0 || e.nonfinite_mismatch > 0) && cal.original_problem.empty())
          cal.original_problem = original_against_oracle(c.output, e, run_label(ref, run));
        c.oracle_rel_l2 = std::max(c.oracle_rel_l2, e.rel_l2);
      }
      // The original against itself: its first run on the same inputs.
      auto it = first.find(key);
      if (it != first.end()) {
        const auto& [a, la] = it->second;
        OutputError e = compare_output(c.output, la.view(), od.view(), c.declared, od.poison);
        if (e.nonfinite_mismatch > 0 && cal.original_problem.empty())
          cal.original_problem = "the original gives different non-finite elements of '" + c.output +
                                 "' on the same inputs (" + run_label(ref, *a) + " and " + run_label(ref, run) + ")";
        if (e.rel_l2 > disagreement_bound(c.declared) && e.mismatched > 0 && cal.original_problem.empty())
          cal.original_problem = disagrees_with_itself(c.output, e, run_label(ref, *a), run_label(ref, run));
        c.spread_rel_l2 = std::max(c.spread_rel_l2, e.rel_l2);
        c.spread_excess = std::max(c.spread_excess, e.worst_excess);
        if (later == 0) first.erase(it);
      } else if (later > 0) {
        first.emplace(key, std::make_pair(&run, std::move(od)));
      }
    }
    const double f = kOracleFactor;
    // An exact (integer) output whose original varies needs a cap: 0 * inf.
    const double scale = std::min(1e6, std::max(1.0, f * c.spread_excess));
    c.vs_original = {std::max(c.declared.rel_l2, (f + 1) * c.oracle_rel_l2 + f * c.spread_rel_l2),
                     c.declared.atol * scale, c.declared.rtol * scale};
    c.vs_oracle = {std::max(c.declared.rel_l2, f * c.oracle_rel_l2 + f * c.spread_rel_l2), c.declared.atol * scale,
                   c.declared.rtol * scale};
    c.slack_factor = c.has_oracle ? f : 0;
  }
  return cal;
}

}  // namespace kernelblaster
