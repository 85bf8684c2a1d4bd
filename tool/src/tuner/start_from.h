// The configuration a run measures first: the source's last winner on this
// GPU (a lockfile's or a results cache's entry whose key went stale after an
// edit). A re-tune of a source whose winner is a cross of moves that each
// lose alone (the softmax example's BLOCK_SIZE=128, VEC_BYTES=16,
// -use_fast_math on an H200: 1.25x, both two-setting parts slower than
// VEC_BYTES=16 alone) finds it again in a short budget only by luck; started
// from it, the run measures it first and keeps it unless something beats it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/config_space.h"

namespace kernelblaster::tuner {

// "NAME=VALUE,...,-flag,..." (a run log's configuration id, or every
// tunable's value as a lockfile entry holds them, with its flags): items
// that start with '-' are nvcc flags, the others NAME=VALUE. Empty items are
// skipped. Throws std::invalid_argument for an item that is neither.
struct StartFrom {
  std::map<std::string, std::string> values;
  std::vector<std::string> flags;
};
StartFrom parse_start_from(const std::string& spec);

// The id of `space`'s configuration with those values (the others at their
// defaults) and exactly those flags, in any order; nullopt when none is (a
// tunable or value the space no longer has, a configuration a constraint
// refuses, the original itself).
std::optional<std::string> find_start(const ConfigSpace& space, const StartFrom& start);

}  // namespace kernelblaster::tuner
