// The results cache: one JSON file per (GPU fingerprint, content key),
//   <dir>/<fingerprint id>/gpu.json     the fingerprint, for lookups by name
//   <dir>/<fingerprint id>/<key>.json   a TunedResult
//   <dir>/<fingerprint id>/tuning/<key>/ the search's state between builds
//                                        (tuner/search_state.h)
//   <dir>/.lock                         writers hold it (flock)
// Entries are written atomically (temp file, rename); readers never lock and
// see a whole entry or none. A hit refreshes the entry's mtime, and a store
// evicts the least recently used entries (and tuning directories) beyond
// the size cap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "build_step/gpu_fingerprint.h"
#include "build_step/tuned_result.h"

namespace kernelblaster::build_step {

class ResultsCache {
 public:
  ResultsCache(std::string dir, std::uint64_t max_bytes) : m_dir(std::move(dir)), m_max_bytes(max_bytes) {}

  // The entry for this GPU and key, or nullopt. A malformed entry counts as
  // a miss, and `unreadable` (when given) says which and why. Never throws.
  std::optional<TunedResult> find(const GpuFingerprint& gpu, const std::string& key,
                                  std::string* unreadable = nullptr) const;
  // Without that GPU at hand: the best entry for `key` among the fingerprints
  // that match `selector` (see gpu_matches). Never throws.
  std::optional<TunedResult> find_for(const std::string& selector, const std::string& key,
                                      std::string* unreadable = nullptr) const;
  // Every GPU's entry for `key`, by fingerprint id, without refreshing them
  // (a report reads, it does not use). Never throws.
  std::vector<TunedResult> all_for(const std::string& key) const;
  // Every entry of the GPUs `selector` matches (see gpu_matches) for the
  // source named `source`, whatever its key, without refreshing them: what
  // a miss compares its key with. Never throws.
  std::vector<TunedResult> all_of_source(const std::string& selector, const std::string& source) const;
  // Stores r under r.gpu and r.key; throws std::runtime_error when the cache
  // cannot be written.
  void store(const TunedResult& r);

  const std::string& dir() const { return m_dir; }
  std::string entry_path(const GpuFingerprint& gpu, const std::string& key) const;
  // Where the tuning of `key` on `gpu` keeps its search between builds. It
  // counts in the cap, as one entry last used when its search.json was
  // written, and is evicted whole.
  std::string tuning_dir(const GpuFingerprint& gpu, const std::string& key) const;

  // KERNELBLASTER_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/kernelblaster/results.
  static std::string default_dir();
  // KERNELBLASTER_CACHE_MAX_MB (default 256) in bytes.
  static std::uint64_t default_max_bytes();

 private:
  void evict_locked();

  std::string m_dir;
  std::uint64_t m_max_bytes;
};

}  // namespace kernelblaster::build_step
