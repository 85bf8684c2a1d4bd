// Which launch sites a harness's calls reach. A launcher often picks its
// launch by the sizes it is given (`if (M >= 128 and N >= 128) { const uint
// BM = 128; ... } else { const uint BM = 64; ... }`). A launch no size of the
// harness reaches never runs while candidates are judged: a tunable that
// shapes it would reach the user's build unverified, and one that shapes
// nothing else would be measured as noise. Each site's enclosing
// conditions (an `if`, an `else if`, or the `else` of a chain) are folded
// with every harness size's values of the launcher's parameters (the
// harness calls the launcher itself); a condition that reads anything else
// counts as met. A synthesized harness calls only the launchers it was made
// from (and what they call, where some size takes the branch of the call):
// a site in any other function is not reached.
// A user's own harness may call this source through other files, so there a
// site in a function it does not name counts as reached.
#pragma once

#include <string>
#include <vector>

#include "tuner/launch_tunables.h"

namespace kernelblaster::tuner {

struct LaunchReach {
  std::vector<int> unreached;       // the lines of the launches no harness size reaches
  std::vector<std::string> left;    // tunables that shape one of them: left as written
  std::vector<std::string> notes;   // one line per launch not reached, with its conditions
  // The source's functions a synthesized harness calls, directly or through
  // others (called_known false for any other harness: not decided).
  bool called_known = false;
  std::vector<std::string> called;
  // The found `#define`s (as written) read inside a function the harness never calls.
  std::vector<std::string> read_uncalled;
};

LaunchReach launch_reach(const std::string& harness_text, const std::string& source_text, const LaunchTunables& found);

}  // namespace kernelblaster::tuner
