// The order of correctness runs: every timed size with each fresh seed, then
// the sizes again in reverse with the first seed, so answers that depend on
// earlier calls (cached by pointer, stale state, races) show up.
// `validation_seeds` > 0: a validation size (with include_validation_sizes)
// runs with that many of the seeds and is not called again in reverse: the
// tuner's search checks every recorded shape once per candidate, where each
// run of a shape dumps its whole recorded extent (SGEMM_CUDA's 64 MB C at
// 128 x 128), and the winner's look runs them all with every seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "profile/metric_sets.h"

namespace kernelblaster {

std::vector<RunRequest> correctness_runs(const std::vector<SizeDecl>& sizes, const std::vector<std::uint64_t>& seeds,
                                         bool include_validation_sizes, int validation_seeds = 0);

// The profiled call: the largest timed size (most elements over all
// buffers) with the CUPTI metrics of `set` ("cheap" or "full").
ProfileRequest profile_request(const HarnessReport& declaration, profile::MetricSet set);

// The timed runs' inputs for one evaluation: their first seed and the
// checked timed calls (TimingRequest::checks: one early, one late, and the
// last, each on a seed of its own), fresh random ones when `base` is 0,
// else derived from `base` (reproducible runs). No evaluation's timed
// inputs are another's, so a result kept from one run is of no use in the
// next.
void choose_timed_inputs(TimingRequest& timing, std::uint64_t base);

// Calls per timed run, per size index, for timing back to back: as many as
// fill kBackToBackNs at the original's median time per call at that size
// (`reference`'s timings), at most kMaxBackToBackCalls; 1 for a size the
// original did not time.
constexpr double kBackToBackNs = 200e3;
constexpr int kMaxBackToBackCalls = 100;
std::vector<int> back_to_back_calls(const HarnessReport& reference, std::size_t sizes);
// "50 calls a run at n=1024, 2 at n=4096", over the sizes `reference` timed.
std::string calls_text(const std::vector<int>& calls, const HarnessReport& reference);

// `count` distinct non-zero seeds from `base`, or fresh random ones when base is 0.
std::vector<std::uint64_t> make_seeds(int count, std::uint64_t base);

}  // namespace kernelblaster
