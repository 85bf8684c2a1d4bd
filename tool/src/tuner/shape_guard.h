// A winner is chosen over the timed sizes by the geometric mean of its
// speedups, so it can be slower at some of the shapes the program uses
// (SGEMM_CUDA's kernel 10 on an H200: WNITER=2 1.08x at 4096, 3-6% slower
// from 128 to 2048). Where every value the winner changes is read inside
// host launchers alone, the tuned copy runs each such launcher as written
// at exactly the recorded shapes where the winner's second look found the
// call slower:
//
//   #pragma push_macro("KERNELBLASTER_K10_WNITER_L350")   // and #undef, #define to the original's value
//   static void runSgemmWarptiling_kernelblaster_as_written(int M, int N, int K, ...) { ...as written... }
//   #pragma pop_macro("KERNELBLASTER_K10_WNITER_L350")
//   void runSgemmWarptiling(int M, int N, int K, ...) { if ((M == 128 && N == 128 && K == 128) || ...)
//       return runSgemmWarptiling_kernelblaster_as_written(M, N, K, ...); ...the winner... }
//
// `#line` directives keep every line pointing at the user's file. Any other
// shape, recorded or not, gets the winner. Nothing is guarded, and the
// answer says why, where a changed value is read outside a host function
// (a `#define` a kernel reads), the launcher is a template, a member or a
// qualified definition, a parameter cannot be forwarded by name, or the
// harness passes none of its parameters as a size.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kernelblaster::tuner {

struct GuardRequest {
  std::string tuned_text;   // the winner's source: its #defines, a #line, then the copy (candidate_source)
  std::string harness;      // the harness's text: its sizes and the dimensions main() passes
  // The winner's non-default tunables: macro name and the original's value.
  std::vector<std::pair<std::string, std::string>> changed;
  std::vector<std::string> slower;  // the labels of the sizes where the winner's call was slower
};

struct ShapeGuard {
  std::string text;                    // the guarded source; "" when nothing was guarded
  std::vector<std::string> functions;  // the launchers guarded
  std::vector<std::string> sizes;      // the sizes they run as written at
  std::string why_not;                 // with text "": one line (empty when nothing was slower)
};

ShapeGuard guard_slower_shapes(const GuardRequest& req);

// The suffix of a guarded launcher's as-written copy.
inline constexpr const char* kAsWrittenSuffix = "_kernelblaster_as_written";

}  // namespace kernelblaster::tuner
