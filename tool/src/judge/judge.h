// Verdicts: from what the reference and candidate processes reported to a
// Status. Pure functions over reports and dump files, unit-tested on host.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol.h"
#include "common/subprocess.h"
#include "judge/calibration.h"
#include "judge/candidate_result.h"
#include "judge/result.h"

namespace kernelblaster {

// How a harness process ended, when it did not end well. `report` may be
// null (the process died before writing one). Returns ok when it did.
Verdict judge_process(const ProcessResult& process, const HarnessReport* report);

// Compares every correctness run of the candidate with the reference run of
// the same index, and with the oracle where the reference report has one,
// under the calibrated tolerances (calibration.h), and where the input
// program compared with torch::allclose, with its tolerances too (where the
// original passes them). Checked timed calls (RunReport::timed_call) are
// judged the same way. Dumps are read from each report's directory. Fills
// `checks`. Precedence: inputs that differ between the processes
// (harness_error), input_modified (inputs the original also writes
// excepted), copied_answer (a failing output holding isolation's pattern,
// protocol.h), cached_result (stale answers, or no GPU work on buffers an
// earlier call got), nondeterministic, then the first failing run's own
// kind: against the original, then against the oracle, then the input
// program's own check.
Verdict judge_correctness(const HarnessReport& ref, const std::string& ref_dir, const HarnessReport& cand,
                          const std::string& cand_dir, const Calibration& calibration, std::vector<RunCheck>* checks);
// The same, calibrated from the reference's own report.
Verdict judge_correctness(const HarnessReport& ref, const std::string& ref_dir, const HarnessReport& cand,
                          const std::string& cand_dir, std::vector<RunCheck>* checks);

// The candidate's correctness runs judged while its timing still runs: its
// interim report (kCorrectnessReportFile in `cand_dir`, written once those
// runs are done) against the same first runs of the original. A failure is
// final, the full judgement failing on the same run; a pass decides
// nothing, so it is returned as none, as is an interim report that is
// absent, unreadable, or lists no runs or more than the original's.
std::optional<Verdict> judge_correctness_early(const HarnessReport& ref, const std::string& ref_dir,
                                               const std::string& cand_dir, const Calibration& calibration,
                                               std::vector<RunCheck>* checks);

// The original itself failing what the calibration found (reference_failed).
Verdict judge_reference(const Calibration& calibration);

// GPU work outside the region the launcher call covers: left to another
// thread after the call returned, or on a stream the event bracket never
// saw. Judged before the outputs, whose failures it explains.
Verdict judge_untimed(const HarnessReport& cand);

// A KernelBench driver scrubs the memory of its allocator that the call was
// not handed before each call (Plan::isolate), so nothing of torch's answer,
// computed in the same process, is within reach. Where it could ask the
// allocator and scrubbed nothing, something changed the allocator (e.g.
// PYTORCH_NO_CUDA_MEMORY_CACHING=1 set from the candidate's static
// initializer): the judge cannot vouch for the call, a tool_error. Native
// harnesses isolate by construction and pass.
Verdict judge_isolation(const HarnessReport& cand);

// What the candidate's process changed about itself while it ran (its
// environment against the one it started with, its signal handlers:
// HarnessReport::process_changes) beyond what the original's process
// changed: process_tampered, naming each change. What the CUDA runtime,
// CUPTI or libtorch do by themselves shows in both and counts for neither.
Verdict judge_process_changes(const HarnessReport& ref, const HarnessReport& cand);

// The report the candidate's process wrote must be the plan's account: its
// correctness runs the plan's, in the plan's order (size and seed), and
// every run numbered in sequence. A report that says otherwise was not
// written by the runtime as it ran the plan: process_tampered.
Verdict judge_report_follows_plan(const Plan& plan, const HarnessReport& cand);

// State a call leaves behind that speeds up the next: L2 set aside for
// persisting accesses after the call returned (the original leaving none)
// is cached_result.
Verdict judge_state(const HarnessReport& ref, const HarnessReport& cand);

// Timed runs that launched nothing or left outputs poisoned (more elements
// holding the poison byte than the original's runs leave: an integer
// output's legitimate values can be that byte), and runs on repeated inputs
// much faster than on fresh ones: results cached by pointer or by input
// fingerprint.
Verdict judge_timing(const HarnessReport& ref, const HarnessReport& cand);

// The event bracket's other side (judge_untimed checks GPU work outside it):
// a candidate whose calls take longer between their CUDA events, beyond
// their GPU work, than the original's do by more than the slack (the
// larger of kOffTheGpuSlackNs and kOffTheGpuShare of the original's event
// time) did work the timing cannot see: on the host before its first
// launch, or in another process it waits for. untimed_work. Part of
// judge_timing.
constexpr double kOffTheGpuSlackNs = 20e3;
constexpr double kOffTheGpuShare = 0.25;
Verdict judge_time_off_the_gpu(const TimingReport& ref, const TimingReport& cand, const std::string& size);

// What a call costs, for the speedup: the GPU's busy time in the call (the
// union of its kernels, copies and sets), not the span from first start to
// last end. The span also holds the idle gaps in which the GPU waits for
// the host (cudaMalloc, cudaFree, a synchronize, launch latency between
// short kernels), and those move by up to 50% from one process to the next
// for the same code, while the busy time stays within 2%
// (bench/RESULTS.md, 2026-11-25). A candidate must not buy busy time with
// idle time (work moved to the host between its kernels): the idle time it
// adds beyond twice the original's, plus 5% of the original's span, is
// charged to it. Without busy times (CUDA events only) the span decides.
struct CallCost {
  double ns = 0;              // what the speedup divides
  double q1_ns = 0, q3_ns = 0;  // its spread over the runs (the same quartiles of the same basis)
  double charged_idle_ns = 0; // idle time charged to the candidate
  bool busy = false;          // busy basis (else span)
};
constexpr double kIdleAllowanceFactor = 2.0;
constexpr double kIdleAllowanceOfSpan = 0.05;
// The reference's cost and the candidate's, at one size.
std::pair<CallCost, CallCost> call_costs(const TimingReport& ref, const TimingReport& cand);

// Per-size timing and the geometric-mean speedup of candidate over reference
// over the sizes the search times (a validation size timed on a second look
// is listed, and left out of the speedup).
std::vector<SizeTiming> compare_timing(const HarnessReport& ref, const HarnessReport& cand, double* speedup);

}  // namespace kernelblaster
