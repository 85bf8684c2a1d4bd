// The line a synthesized harness carries when it launches kernels as they
// were recorded (harness/kernel_capture.h). Two parts read it:
// - the tuner keeps launch-shaping tunables off (the harness launches with
//   the recorded grid and block whatever the source's launch code says)
//   unless it can give a launcher the shape the source's own launch
//   expressions compute (tuner/replay_shapes.h): it finds a launcher by
//   its note and puts the shape's lines before its anchor;
// - the harness build links the source for its kernels alone: symbols of
//   the target's other files or libraries it never calls may stay
//   unresolved, and a main() of the source's gives way to the harness's.
#pragma once

namespace kernelblaster {

inline constexpr const char* kKernelReplayMarker = "// kernelblaster: launches kernels as recorded";

// The comment line above each launcher such a harness defines ("// <the
// kernel's demangled name>" then this), and the line of its body before
// which the launch's grid, block and shared bytes are final.
inline constexpr const char* kReplayedLauncherNote = ", launched as the program launched it (recorded at the kernel level).";
inline constexpr const char* kLaunchShapeAnchor = "  if (shared_bytes > 48 * 1024)\n";

// The line (then the kernel's name, unqualified, no template arguments)
// above a launcher whose every recorded launch passed buffers whose
// ranges, from each pointer to its allocation's end, overlap no other's:
// the one fact that lets the tuner offer `__restrict__` on that kernel
// (tuner/kernel_rewrites.h; its tunable: common/rewrite_tunables.h).
inline constexpr const char* kDisjointBuffersNote = "// kernelblaster: buffers disjoint in every recorded launch of ";

}  // namespace kernelblaster
