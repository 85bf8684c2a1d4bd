// How many build steps ended for each cause (build_step.h, BuildCause), per
// results-cache directory, the way `ccache -s` counts its outcomes:
// `<cache dir>/stats.json`, updated under a lock by every build step.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "build_step/build_step.h"

namespace kernelblaster::build_step {

// Adds `report` to the counts. Never throws: a build step's counting must
// not fail the build (returns false when the counts could not be written).
bool count_build_step(const std::string& cache_dir, const BuildReport& report);

// The counts by cause name, plus "stale_lockfile"; empty when none yet.
// Throws std::runtime_error for an unreadable stats file.
std::map<std::string, long long> read_build_stats(const std::string& cache_dir);

// Forgets the counts.
void zero_build_stats(const std::string& cache_dir);

// Beside each target's manifest in a build tree, the results cache its build
// steps used (written by every build step): where `kernelblaster stats` run
// in a build tree looks.
inline constexpr const char* kCacheDirRecord = "cache_dir.txt";

// The results caches the build steps of the build tree at `build_dir` used,
// distinct, in order; empty when none has run there.
std::vector<std::string> build_tree_cache_dirs(const std::string& build_dir);

}  // namespace kernelblaster::build_step
