// Each kernel of a call against the original's, by its place in the launch
// order. A change that speeds the whole call up can slow one of its kernels
// down (a tile shared by every kernel of a program suits some of them and
// not others), and a user who times that kernel alone sees it slower. So
// the search keeps no candidate that makes any kernel slower by more than
// kKernelSlowerLimit, beyond the spread of both timings.
#pragma once

#include <string>
#include <vector>

#include "common/protocol.h"
#include "eval/result.h"

namespace kernelblaster {

// A kernel counts as slower when its median is more than 1% above the
// original's and the two samples do not overlap (the candidate's q1 above
// the original's q3): noise between two processes is not a slowdown.
constexpr double kKernelSlowerLimit = 1.01;

// "void ns::tile<32, 8>(float*, int)" as `ns::tile`: the kernel whatever
// its template arguments (a tuned tile is the same kernel), from a mangled
// or a plain name.
std::string kernel_base_name(const std::string& name);

// Kernel by kernel, when both calls launch the same number of kernels and
// the same kernel (base name) at each place; else empty, and the call is
// compared only as a whole.
std::vector<KernelSpeed> kernel_speeds(const TimingReport& ref, const TimingReport& cand);

// The first kernel that is slower at some size, as one line
// ("transposeCoarseGrained 0.970x at 1024x1024"); empty when none is.
std::string slower_kernel(const std::vector<SizeTiming>& timing);

}  // namespace kernelblaster
