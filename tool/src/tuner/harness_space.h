// What a harness lets the tuner search of a source's tunables. Launches no
// size of the harness reaches keep theirs (launch_reach.h). With a harness
// that replays recorded launches, only the tunables its reshaped launchers
// follow are searched (replay_shapes.h), none where it cannot be reshaped;
// the rewrites that change no shape (kernel_rewrites.h) are searched as
// flags are, but `__restrict__` only on a kernel whose recorded launches
// all had disjoint buffers (kDisjointBuffersNote): never with a native harness.
// `tune` searches what is left; `tune --list --harness` shows the same.
#pragma once

#include <string>
#include <vector>

#include "tuner/source_space.h"

namespace kernelblaster::tuner {

struct HarnessSpace {
  std::vector<std::string> left;            // tunables left as written
  std::vector<std::string> lines;           // what was decided and why, one line each
  std::string harness;                      // the reshaped copy of a replay harness; "" when none
  std::vector<std::string> harness_macros;  // the tunables it reads (a candidate passes them with -D)
};

// `decl` loses the tunables left as written (and the constraints that read them).
// `partial`: the harness runs only part of the source's kernels (a build
// whose recordings miss some, `tune --partial-harness`): only the tunables
// of launch-site groups it runs whole are searched, no `#define` a function
// it never calls or a header reads, no rewrite outside such a group (the
// caller drops flags).
HarnessSpace harness_space(const std::string& harness_text, const SourceSpace& found, const std::string& text,
                           const std::string& source, const std::vector<std::string>& include_dirs, SpaceDecl& decl,
                           bool partial = false);

}  // namespace kernelblaster::tuner
