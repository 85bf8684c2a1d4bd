// Seconds on the steady clock, for the phase and wall times the tool reports.
#pragma once

#include <chrono>

namespace kernelblaster {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace kernelblaster
