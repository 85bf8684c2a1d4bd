// Which GPU a tuned result was measured on. Results are kept per
// fingerprint: a result measured on one GPU is applied on the same kind of
// GPU only (same name, compute capability, SM count and driver major).
#pragma once

#include <optional>
#include <string>

namespace kernelblaster::build_step {

struct GpuFingerprint {
  std::string name;      // "NVIDIA H200"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int driver_major = 0;  // CUDA driver API major version, e.g. 13

  std::string arch() const;  // "sm_90"
  // The one id of a GPU's results (the cache's folder, the lockfile's and
  // remote storage's), printed by `kernelblaster gpu info`, e.g.
  // "nvidia-h200_sm90_132sm_drv13". Its driver is the CUDA driver API's
  // major version: kernel driver releases of one CUDA major share results.
  std::string id() const;
  // Whether `text` has the shape id() gives ("nvidia-h200_sm90_132sm_drv580"):
  // a selector that names one fingerprint, not a name or an architecture.
  static bool is_id(const std::string& text);
  bool empty() const { return name.empty(); }
};

// How a machine without that GPU names the one it builds for: its id, a GPU
// name (case-insensitive, e.g. "NVIDIA H200"), the ceilings' key earlier
// `gpu info` printed ("nvidia-h200-sm90-132sm-drv580": name, compute
// capability and SMs decide), or an architecture ("sm_90", "90",
// "compute_90"). An empty selector matches nothing.
bool gpu_matches(const GpuFingerprint& gpu, const std::string& selector);
// 0 for a name or id match, 1 for an architecture match, -1 for none: lower
// is the better match when several results fit one selector.
int gpu_match_rank(const GpuFingerprint& gpu, const std::string& selector);

// The fingerprint of CUDA device `device` through the CUDA runtime, or
// nullopt with the reason in `why_not` (no driver, no device, ...).
std::optional<GpuFingerprint> probe_gpu_fingerprint(int device, std::string* why_not);

}  // namespace kernelblaster::build_step
