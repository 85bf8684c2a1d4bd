// Rewrites without a model (issue 38, deliverable 5): changes to a kernel
// that a compiler would make if it knew more, each offered as a tunable of
// the copy candidates are made from, whose default compiles to what the
// original does, and each only where its precondition holds:
//
//   unroll factor    the counted `for` loops (one variable, set in the
//                    header only, compared in the condition, stepped by ++,
//                    --, += or -=) of a __global__ or __device__ function
//                    with no pragma of their own, but those the source runs
//                    4 times or fewer (the compiler unrolls them whole),
//                    share KERNELBLASTER_UNROLL_<function>: 0 (as written),
//                    2, 4 or 8 (`#pragma unroll N` before each). Technique
//                    loop_unrolling.
//   launch bounds    a __global__ kernel with no __launch_bounds__ whose
//                    every launch in the source has a block the source fixes
//                    (integers and macros only, so the bound is written as
//                    that block and holds for every candidate's values) gets
//                    KERNELBLASTER_MIN_BLOCKS_<kernel>: 0 (as written), or
//                    __launch_bounds__(<block>, 1, 2 or 4). A kernel launched
//                    with a block the source does not fix is left as written.
//                    Technique launch_bounds.
//   __restrict__     a __global__ kernel with two or more pointer
//                    parameters, none restrict already, gets
//                    KERNELBLASTER_RESTRICT_<kernel>: 0 (as written) or 1
//                    (__restrict__ on each). It is no rewrite that holds
//                    whatever the program passes: it holds only where the
//                    buffers never overlap, so harness_space.h keeps it only
//                    where the harness replays recorded launches that all
//                    had disjoint buffers (kDisjointBuffersNote) and the
//                    build line says it assumes that. Technique
//                    read_only_cache. (`const` on the pointees is not
//                    offered: it changes the kernel's mangled name, by which
//                    a replay harness and other files find it.)
//
// A function's rewrites join the group of the launch sites that launch it
// (launch_tunables.h) where it has one and their product fits a part of the
// space; else they form a group of their own ("rewrites of K"), so they add
// to the space rather than multiply it. A pragma unroll cannot change what a loop computes, nor a bound that
// covers every block what a launch does; a candidate is judged like any
// other all the same.
#pragma once

#include <string>
#include <vector>

#include "tuner/launch_tunables.h"
#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

struct KernelRewrites {
  std::string text;                  // the copy (== `text` when nothing applies)
  std::vector<Tunable> tunables;     // one per rewrite site
  std::vector<std::string> summary;  // one phrase per kind of rewrite found
};

// `text` may be a copy other preparations made (with `#line` directives):
// lines are named as the original file numbers them.
// `sites`: the launch sites launch_tunables.h found (their groups). A kernel
// declared with `__launch_bounds__` anywhere (in `text`, or in a header it
// includes, found in `include_dirs`) gets no launch bounds rewrite.
KernelRewrites prepare_kernel_rewrites(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                      const std::vector<LaunchSite>& sites = {},
                                      const std::vector<std::string>& include_dirs = {});

// Whether `t` is one of these rewrites (they change no launch's shape).
bool is_kernel_rewrite(const Tunable& t);

// Whether `t` is the __restrict__ rewrite, and the kernel it is for ("" if not).
bool is_restrict_rewrite(const Tunable& t);
std::string restricted_kernel(const Tunable& t);

// The line `pos` has in the file `text` stands for, `#line` directives honoured.
int logical_line(const std::string& text, std::size_t pos);

}  // namespace kernelblaster::tuner
