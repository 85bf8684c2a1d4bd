// The per-GPU ceilings cache: one JSON file per GPU fingerprint under the
// cache directory, written atomically (temp file + rename), so a crash or
// two writers at once leave a whole file, old or new.
#pragma once

#include <optional>
#include <string>

#include "profile/roofline.h"

namespace kernelblaster::profile {

// What makes two GPUs interchangeable for ceilings.
struct GpuFingerprint {
  std::string name;     // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_major = 0; // the kernel driver's major version, e.g. 580; 0: unknown
  // A file-name-safe key: lower-case name with non-alphanumerics as '-',
  // then -sm<cc>-<SMs>sm-drv<major>.
  std::string key() const;
};

struct CachedCeilings {
  GpuFingerprint gpu;
  Ceilings ceilings;
  std::string measured_at;  // ISO-8601 UTC
  std::string method;       // a line saying how it was measured
  double copy_memcpy_gbs = 0, copy_kernel_gbs = 0;  // the two copy measurements behind dram_gbs
};

// KERNELBLASTER_CACHE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/kernelblaster.
std::string default_cache_dir();

class CeilingsCache {
 public:
  explicit CeilingsCache(std::string dir) : m_dir(std::move(dir)) {}
  std::string path_for(const GpuFingerprint& gpu) const;
  // nullopt when absent; throws std::runtime_error when present but
  // unreadable, malformed, or for another fingerprint.
  std::optional<CachedCeilings> load(const GpuFingerprint& gpu) const;
  void store(const CachedCeilings& entry) const;

 private:
  std::string m_dir;
};

std::string ceilings_to_json(const CachedCeilings& c);
CachedCeilings ceilings_from_json(const std::string& text);  // throws std::runtime_error
// The entry as `gpu ceilings --json` prints it: plus whether it came from the
// cache and the file it lives in.
std::string ceilings_report_json(const CachedCeilings& c, bool cached, const std::string& path);

}  // namespace kernelblaster::profile
