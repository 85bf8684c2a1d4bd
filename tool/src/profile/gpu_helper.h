// Running kernelblaster-gpu, the GPU program next to the tool, from the tool.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profile/gpu_facts.h"

namespace kernelblaster::profile {

// KERNELBLASTER_GPU_HELPER, else kernelblaster-gpu next to `self_exe`.
std::string find_gpu_helper(const std::string& self_exe);

struct HelperOutcome {
  int exit_code = 2;     // 0 ok, 77 no GPU, else failure
  std::string message;   // one line when not ok
  GpuFacts facts;
};

// mode: "info" or "ceilings". Never throws.
HelperOutcome run_gpu_helper(const std::string& helper, const std::string& mode, int device, double timeout_s);

// This GPU's roofline ceilings: from the cache (found by the fingerprint the
// helper's `info` reports), else measured once by the helper's `ceilings`
// and stored, so the first run on a fresh machine pays for them and every
// later run reuses them (issue 40: no manual command). `refresh` measures
// anyway. Never throws.
struct CeilingsLookup {
  std::optional<CachedCeilings> entry;
  bool cached = false;      // read from the cache, not measured now
  double measured_s = 0;    // the helper's seconds, when measured now
  std::string path;         // the cache file
  int exit_code = 0;        // without an entry: the helper's (77: no GPU; 2: any other failure)
  std::string why_not;      // without an entry: one line
  std::vector<std::string> notes;  // a damaged cache entry ignored, an entry that could not be stored
};
CeilingsLookup ceilings_for(const std::string& helper, int device, const std::string& cache_dir, bool refresh);
// What a run says of a lookup: the one-time measurement and its cost, or why
// there are no ceilings; "" when they came from the cache.
std::string ceilings_line(const CeilingsLookup& found);

}  // namespace kernelblaster::profile
