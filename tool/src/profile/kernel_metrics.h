// Assembles what the harness reported about the profiled call into the
// per-kernel metrics of an evaluation (METRICS.md names), and picks the
// dominant kernel for the classifier.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "profile/kernel_profile.h"
#include "profile/ptxas_info.h"
#include "profile/roofline.h"

namespace kernelblaster::profile {

struct ProfileInputs {
  const ProfileReport* report = nullptr;                  // from the harness (required)
  const std::map<std::string, PtxasFacts>* ptxas = nullptr;  // mangled name -> facts; may be null
  std::optional<Ceilings> ceilings;                       // cached for this GPU, if any
  double call_median_us = 0;    // unprofiled median of the profiled size (0: unknown)
  double kernels_per_run = 0;   // from timing (0: unknown)
};

// Kernels of the call, dominant (longest) first, with counters, launch facts,
// ptxas facts, roofline positions and call-level metrics. Kernels of the
// same function are merged (durations summed, other metrics of the longest).
std::vector<KernelProfile> build_kernel_profiles(const ProfileInputs& in);

// The dominant kernel's metrics, or empty when nothing was profiled.
std::map<std::string, double> dominant_kernel_metrics(const std::vector<KernelProfile>& kernels);

// A mangled C++ name made readable ("softmax_kernel(float const*, ...)");
// returned unchanged when it is not a mangled name.
std::string demangle(const std::string& name);

}  // namespace kernelblaster::profile
