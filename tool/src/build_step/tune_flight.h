// Single-flight tuning: builds that need the same content key on the same
// GPU tune it once (issue 27). The first to get there takes the key's tuning
// lock (a flock beside the results cache's entry) and tunes; the others wait
// on the lock, saying whom they wait for, then find the result in the cache.
// A holder that dies (kill -9, a crash) drops the lock with its process: a
// waiter then finds no result and tunes itself.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "build_step/gpu_fingerprint.h"
#include "common/file_lock.h"

namespace kernelblaster::build_step {

class TuningFlight {
 public:
  // Blocks until this build may tune `key` on `gpu`; `who` names this build
  // to a build that waits on it ("scale.cu, pid 4242"); `say` is told once
  // when this build has to wait. Never throws: where no lock can be taken,
  // the build tunes unguarded.
  TuningFlight(const std::string& cache_dir, const GpuFingerprint& gpu, const std::string& key, const std::string& who,
               const std::function<void(const std::string& line)>& say);
  bool waited() const { return !m_holder.empty(); }
  const std::string& holder() const { return m_holder; }  // whom it waited for

 private:
  std::unique_ptr<FileLock> m_lock;
  std::string m_holder;
};

// Where the tuning lock of `key` on `gpu` lives.
std::string tuning_lock_path(const std::string& cache_dir, const GpuFingerprint& gpu, const std::string& key);

}  // namespace kernelblaster::build_step
