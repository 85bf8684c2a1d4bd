// The configuration space: the product of the tunables' values and the flag
// dimensions, filtered by the constraints, capped at kMaxConfigurations.
// Tunables of a group (Tunable::group, launch sites that share tunables)
// vary only in their group's part: the space is the union of the parts, one
// group off its defaults at a time, each walked depth first so that a
// constraint drops every combination of a prefix it already refuses.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// Above this many valid configurations the space is thinned to this size:
// the original's neighbourhood (kNearSteps) first, then an evenly strided
// subset of the rest (deterministic, in enumeration order); with
// groups, each part of the space gets an equal share of it (a part smaller
// than its share keeps every configuration, the rest shared again). Large
// enough for every recorded space of bench/kt_replay (up to 17,956): the
// search learns, so a big space costs picks no more evaluations.
inline constexpr std::size_t kMaxConfigurations = 32'768;
// Configurations this many settings or fewer from the original are kept
// whole when the space is thinned (where they fit in half the cap; else
// those one setting away; else none are favoured).
inline constexpr std::size_t kNearSteps = 2;
// Above this many raw combinations of tunable values in one part of the
// space (one group of launch sites with the ungrouped tunables; flags not
// counted) the declaration is refused outright.
inline constexpr std::size_t kMaxCombinations = 10'000'000;

// One non-default choice of a configuration.
struct Setting {
  std::string name;       // tunable name or flag dimension
  std::string value;      // tunable value, or the nvcc flag
  std::string technique;  // KB technique id
  bool flag = false;
  // The KB's setting key: "NAME=VALUE" for a tunable, the flag itself for a flag.
  std::string key() const { return flag ? value : name + "=" + value; }
};

inline constexpr const char* kMixedPart = "*";

struct Configuration {
  std::string id;                             // non-default settings' keys joined by ","; "default"
  std::map<std::string, std::string> values;  // every tunable → its value
  std::vector<std::string> flags;             // non-default flags, in dimension order
  std::vector<Setting> settings;              // non-default: tunables first, then flags
  // The part of the space it belongs to: the group of launch sites whose
  // tunables alone it changes (Tunable::group), "" when it changes none
  // (flags and ungrouped tunables alone), kMixedPart when it changes a
  // group's and others (flags, ungrouped tunables: they vary in every
  // group's part, config_space.cc). A space with no mixed configuration is
  // searched part by part (search_loop.cc).
  std::string part;
  bool is_default() const { return settings.empty(); }
};

struct ConfigSpace {
  Configuration original;               // every default: the source as written
  std::vector<Configuration> configs;   // the candidates (the original excluded)
  std::size_t combinations = 0;         // raw product, the original included
  std::size_t valid = 0;                // after the constraints, the original included
  bool capped = false;                  // thinned to kMaxConfigurations
  std::size_t near = 0;                 // when thinned: configurations kept whole near the original
  std::size_t near_steps = 0;           // ... at most this many settings from it
};

// Throws SpaceError for a space too large to enumerate, or a constraint on a
// tunable whose values are not all integers.
ConfigSpace enumerate_space(const SpaceDecl& decl, const std::vector<FlagDimension>& flags,
                            std::size_t cap = kMaxConfigurations);

// The configuration with these tunable values and flags (unknown flags get
// flag_technique). Values missing from `values` take the default.
Configuration make_configuration(const std::vector<Tunable>& tunables, const std::map<std::string, std::string>& values,
                                 const std::vector<std::string>& flags);

}  // namespace kernelblaster::tuner
