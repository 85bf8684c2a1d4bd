// Each kernel of a call against the original's, by its place in the launch
// order. A change that speeds the whole call up can slow one of its kernels
// down (a tile shared by every kernel of a program suits some of them and
// not others), and a user who times that kernel alone sees it slower. So
// the search keeps no candidate that makes any kernel slower by more than
// kKernelSlowerLimit, beyond the spread of both timings.
//
// A kernel is judged over the timed sizes as the call is: by the geometric
// mean of its speedups at each size. A tile that is 9% faster at the
// largest recorded size and 2.7% slower at the next (SGEMM_CUDA's kernel
// 10, WNITER=2, on an H200) makes that kernel faster over the sizes the
// program ran; that it is slower at one size is said in the result's line
// and in the tuning report, never hidden.
#pragma once

#include <string>
#include <vector>

#include "common/protocol.h"
#include "judge/result.h"

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

// One kernel (by its place in the launch order and its name) over the timed
// sizes where the call launched it.
struct KernelOverSizes {
  std::size_t place = 0;          // in the launch order
  std::string name;
  double speedup = 0;             // geometric mean over the sizes
  double optimistic_speedup = 0;  // the same of KernelSpeed::optimistic_speedup
  // Beyond kKernelSlowerLimit over the sizes, and slower still at the most
  // favourable reading of both samples.
  bool slower = false;
  std::string slowest_size;       // the size where it does worst
  double slowest_speedup = 0;     // its speedup there
  int sizes = 0;
};
std::vector<KernelOverSizes> kernels_over_sizes(const std::vector<SizeTiming>& timing);

// The first kernel that is slower over the timed sizes, as one line
// ("transposeCoarseGrained 0.970x at 1024x1024" with one size,
// "tile 0.962x over 2 sizes (0.950x at 2048)" with more); empty when none is.
std::string slower_kernel(const std::vector<SizeTiming>& timing);

// The first kernel that is slower at one size while faster (or within the
// limit) over them all, as one line ("sgemmWarptiling 0.973x at 2048,
// 1.030x over 2 sizes"); empty when none is. Said, never a reason to refuse.
std::string kernel_slower_at_a_size(const std::vector<SizeTiming>& timing);

// The whole call at the validation sizes a second look timed
// (SizeTiming::validation_only), as one line: "0.942x (call3) to 0.968x
// (call4) at 4 sizes", or "0.966x at call0" for one; empty when none was
// timed. These sizes are outside the speedup the search compared; a user
// sees here what the winner does at the other shapes the program used.
std::string other_sizes_text(const std::vector<SizeTiming>& timing);

// A loop of one short kernel is paced by its launches, not by the kernel:
// the cuda-samples transpose times 100 launches of each kernel back to back,
// and on an H200 the plain program issues one every 4.6 us while copy runs
// in 3.4 us of GPU time (bench/launch_bound: an empty kernel's loop takes as
// long). Its tuned kernels were 10-25% faster in the harness and its own
// figures moved 1.006-1.037x. A kernel of a timed size counts here when the
// candidate made it faster by kPacedGain or more and it now runs shorter
// than the harness took to issue one launch of the call (the call's issue
// time, the lower of both sides', over its launches; 7.4 us for the
// transpose's call, CUPTI's tracing and the replayed call's own host work
// included, so the harness's pace is slower than a plain program's). As one
// line: the size where the most such kernels are, that pace, the kernel
// whose gain a loop of it alone hides most, and how many more; empty when
// none. A loop of that kernel alone at that pace is sped up by
// max(pace, original) / max(pace, candidate) at most. Said, never a reason
// to refuse. Not where the call's host time follows its GPU time (the
// candidate's issue time fell by half the GPU time it saved or more): a
// launcher that waits on the device in its call is not paced by launches.
constexpr double kPacedGain = 1.02;
std::string launch_paced_text(const std::vector<SizeTiming>& timing);

}  // namespace kernelblaster
