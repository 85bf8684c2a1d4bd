#include "build_step/tune_flight.h"

#include <filesystem>

namespace kernelblaster::build_step {

std::string tuning_lock_path(const std::string& cache_dir, const GpuFingerprint& gpu, const std::string& key) {
  return (std::filesystem::path(cache_dir) / gpu.id() / (key + ".tuning.lock")).string();
}

TuningFlight::TuningFlight(const std::string& cache_dir, const GpuFingerprint& gpu, const std::string& key,
                           const std::string& who, const std::function<void(const std::string& line)>& say) {
  try {
    m_lock = std::make_unique<FileLock>(tuning_lock_path(cache_dir, gpu, key), who, [&](const std::string& holder) {
      m_holder = holder;
      if (say) say("waiting for " + holder + ", which is tuning the same source for this GPU; its result will be used");
    });
  } catch (const FileLockError&) {
    m_lock.reset();  // an unwritable cache: tune unguarded, as before single flight
  }
}

}  // namespace kernelblaster::build_step
