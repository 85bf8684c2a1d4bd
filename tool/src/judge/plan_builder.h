// The order of correctness runs: every timed size with each fresh seed, then
// the sizes again in reverse with the first seed, so answers that depend on
// earlier calls (cached by pointer, stale state, races) show up.
// `screening`: each size with the first seed alone, and only the timed sizes
// again in reverse (the original's spread on the same inputs is calibrated
// there: judge/calibration.h): the tuner's search screens its candidates,
// where each run of a shape dumps its whole recorded extent (SGEMM_CUDA's
// 64 MB C even at 128 x 128); the winner's look runs every size with every
// seed and in reverse.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "profile/metric_sets.h"

namespace kernelblaster {

std::vector<RunRequest> correctness_runs(const std::vector<SizeDecl>& sizes, const std::vector<std::uint64_t>& seeds,
                                         bool include_validation_sizes, bool screening = false);

// The profiled call: the largest timed size (most elements over all
// buffers) with the CUPTI metrics of `set` ("cheap" or "full").
ProfileRequest profile_request(const HarnessReport& declaration, profile::MetricSet set);

// The timed runs' inputs for one evaluation: their first seed and the
// checked timed calls (TimingRequest::checks: one early, one late, and the
// last, each on a seed of its own), fresh random ones when `base` is 0,
// else derived from `base` (reproducible runs). No evaluation's timed
// inputs are another's, so a result kept from one run is of no use in the
// next. `screening`: the late check alone (a search's screen; each check
// dumps the outputs, 64 MB a call for SGEMM_CUDA).
void choose_timed_inputs(TimingRequest& timing, std::uint64_t base, bool screening = false);
constexpr std::size_t kTimedChecks = 3;  // a full check's checked timed calls a size

// A screen's correctness runs and checked timed calls over a full check's
// on the same sizes, `seeds` a size, `timed_sizes` of them timed: what a
// screen costs of a full check, about (EvalResult::screen_share).
double screen_share(const std::vector<SizeDecl>& sizes, int seeds, bool include_validation_sizes,
                    std::size_t timed_sizes);

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
