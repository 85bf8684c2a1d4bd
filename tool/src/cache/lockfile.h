// kernelblaster.lock.json: results committed beside a project's
// CMakeLists.txt, so a machine without the GPU rebuilds exactly what was
// measured on it. One entry per (source, GPU fingerprint):
//   {"kernelblaster_lockfile": 1,
//    "sources": {"src/softmax.cu": {"nvidia-h200_sm90_132sm_drv13": {TunedResult}}}}
// Source names are paths relative to the lockfile's directory.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "cache/tuned_result.h"

namespace kernelblaster::cache {

inline constexpr int kLockfileVersion = 1;

struct Lockfile {
  // source name -> fingerprint id -> result
  std::map<std::string, std::map<std::string, TunedResult>> sources;
};

// A missing file is an empty lockfile; a malformed one throws
// std::runtime_error naming the file (it is never overwritten).
Lockfile read_lockfile(const std::string& path);
std::string serialize_lockfile(const Lockfile& lock);  // stable order, pretty

// Locks `path`, re-reads it, sets r for (r.source, r.gpu), writes atomically.
void update_lockfile(const std::string& path, const TunedResult& r);

// The entry of `source` for the GPU named by `selector` (gpu_matches): a
// fingerprint/name match beats an architecture match.
std::optional<TunedResult> select_entry(const Lockfile& lock, const std::string& source, const std::string& selector);

// `source` as the lockfile at `lockfile_path` names it.
std::string lockfile_source_name(const std::string& lockfile_path, const std::string& source);

}  // namespace kernelblaster::cache
