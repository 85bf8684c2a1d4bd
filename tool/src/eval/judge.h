// Verdicts: from what the reference and candidate processes reported to a
// Status. Pure functions over reports and dump files, unit-tested on host.
#pragma once

#include <string>

#include "common/protocol.h"
#include "common/subprocess.h"
#include "eval/result.h"

namespace kernelblaster {

struct Verdict {
  Status status = Status::ok;
  std::string detail;
};

// How a harness process ended, when it did not end well. `report` may be
// null (the process died before writing one). Returns ok when it did.
Verdict judge_process(const ProcessResult& process, const HarnessReport* report);

// Compares every correctness run of the candidate with the reference run of
// the same index. Dumps are read from each report's directory. Fills
// `checks`. Precedence: input_modified, cached_result, nondeterministic,
// then the first failing run's own kind.
Verdict judge_correctness(const HarnessReport& ref, const std::string& ref_dir, const HarnessReport& cand,
                          const std::string& cand_dir, std::vector<RunCheck>* checks);

// GPU work outside the region the launcher call covers: left to another
// thread after the call returned, or on a stream the event bracket never
// saw. Judged before the outputs, whose failures it explains.
Verdict judge_untimed(const HarnessReport& cand);

// Runs on repeated inputs much faster than on fresh ones: results cached by
// input fingerprint.
Verdict judge_timing(const HarnessReport& cand);

// Per-size timing and the geometric-mean speedup of candidate over reference.
std::vector<SizeTiming> compare_timing(const HarnessReport& ref, const HarnessReport& cand, double* speedup);

}  // namespace kernelblaster
