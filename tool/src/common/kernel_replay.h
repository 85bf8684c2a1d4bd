// The line a synthesized harness carries when it launches kernels as they
// were recorded (synth/kernel_capture.h). Two parts read it:
// - the tuner keeps launch-shaping tunables off (the harness launches with
//   the recorded grid and block whatever the source's launch code says);
// - the harness build links the source for its kernels alone: symbols of
//   the target's other files or libraries it never calls may stay
//   unresolved, and a main() of the source's gives way to the harness's.
#pragma once

namespace kernelblaster {

inline constexpr const char* kKernelReplayMarker = "// kernelblaster: launches kernels as recorded";

}  // namespace kernelblaster
