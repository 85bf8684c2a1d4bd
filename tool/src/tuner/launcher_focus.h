// Judging one group of launch sites alone. A source with several host
// launchers (SGEMM_CUDA's runner.cu: twelve, each with its own tunables)
// is harnessed by one program that calls them all; timed together, a 5%
// gain of one kernel drowns in the others (the naive kernel is most of the
// time). When the harness names its launchers (common/launcher_mask.h) and
// every launch site of a group sits in one of them, a configuration that
// changes only that group's tunables (and flags) is judged by the harness
// built to run those launchers alone, against the original built the same
// way: the speedup is that group's. What the configuration does to the
// other launchers is checked when the winner is composed (focused_winner.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tuner/config_space.h"
#include "tuner/launch_tunables.h"

namespace kernelblaster::tuner {

struct LauncherFocus {
  std::vector<std::string> launchers;                // the harness's, in its order
  std::map<std::string, std::uint64_t> group_masks;  // a group judged alone -> its launchers' bits
  std::map<std::string, std::string> group_of;       // tunable -> its group ("" : none)

  // Whether any group can be judged alone.
  bool active() const { return !group_masks.empty(); }
  // The group whose launchers alone judge `c`: the one group every changed
  // tunable of `c` belongs to, when that group can be judged alone; "" for
  // the whole harness (the original, flags alone, an ungrouped tunable,
  // several groups).
  std::string group(const Configuration& c) const;
  // Its launchers' bits; 0: the whole harness.
  std::uint64_t mask(const Configuration& c) const;
  // The names of the launchers of `mask`, space-separated.
  std::string names(std::uint64_t mask) const;
};

// `launchers`: harness_launchers() of the harness's text. A group is judged
// alone when every one of its sites is in a named launcher (among the first
// kMaskedLaunchers) and those are not every launcher of the harness.
LauncherFocus launcher_focus(const std::vector<std::string>& launchers, const std::vector<LaunchSite>& sites,
                             const std::vector<Tunable>& tunables);

}  // namespace kernelblaster::tuner
