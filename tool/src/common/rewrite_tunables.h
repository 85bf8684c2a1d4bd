// The names of the rewrites offered without a model (tuner/kernel_rewrites.h):
// a prefix and the function's or kernel's name. Value 0 leaves the code as
// written; the build line names only the ones a winner turned on
// (build_step/tuned_result.h), and says what the __restrict__ one assumes.
#pragma once

#include <string>

namespace kernelblaster {

inline constexpr const char* kUnrollTunablePrefix = "KERNELBLASTER_UNROLL_";
inline constexpr const char* kBoundsTunablePrefix = "KERNELBLASTER_MIN_BLOCKS_";
inline constexpr const char* kRestrictTunablePrefix = "KERNELBLASTER_RESTRICT_";

// Whether `name` is one of these rewrites' tunables.
inline bool is_rewrite_tunable(const std::string& name) {
  for (const char* prefix : {kUnrollTunablePrefix, kBoundsTunablePrefix, kRestrictTunablePrefix})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace kernelblaster
