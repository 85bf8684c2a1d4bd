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
#include <vector>

#include "build_step/tuned_result.h"

namespace kernelblaster::build_step {

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

// Two runners' lockfiles (or fragments) as one, deterministically: every
// (source, GPU) entry of either; where both have one that differs, one rule
// decides, and `decisions` gets a line naming the loser:
//   1. measured for another content key: the later measurement stands (the
//      other was measured for a source, tool or settings since changed);
//   2. the same key: the re-verified one, then the one from more
//      evaluations, then the faster, then the later, then the one whose
//      JSON sorts first (so the merge of A and B is the merge of B and A).
Lockfile merge_lockfiles(const Lockfile& a, const Lockfile& b, std::vector<std::string>* decisions);
// Which of two entries for the same source and GPU stands (rules above);
// `why` says by which rule.
const TunedResult& stands(const TunedResult& a, const TunedResult& b, std::string* why);

// The entry of `source` for the GPU named by `selector` (gpu_matches): a
// fingerprint/name match beats an architecture match.
std::optional<TunedResult> select_entry(const Lockfile& lock, const std::string& source, const std::string& selector);

// A runner's own part of the lockfile at `lockfile_path`, for one GPU:
// kernelblaster.lock.d/<gpu id>.json beside it, in the lockfile's format,
// its sources named as the lockfile names them.
std::string lockfile_fragment_path(const std::string& lockfile_path, const std::string& gpu_id);

// `source` as the lockfile at `lockfile_path` names it.
std::string lockfile_source_name(const std::string& lockfile_path, const std::string& source);

}  // namespace kernelblaster::build_step
