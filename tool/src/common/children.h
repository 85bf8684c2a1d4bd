// The tool's own children, told apart from strays: processes that left a
// child's process group (setsid, a double fork) and outlived it. Linux hands
// an orphan to its nearest ancestor that is a "child subreaper"; once the
// tool is one (adopt_orphans), a stray becomes the tool's child when its
// parent ends, and every child the tool did not fork itself is a stray.
#pragma once

#include <sys/types.h>

#include <vector>

#include "common/process_tree.h"

namespace kernelblaster {

// fork(), with the child registered (in the parent) under the registry's
// lock: every spawner in the tool forks through this.
pid_t fork_child();
// After the child's final waitpid: it is no longer the tool's.
void forget_child(pid_t pid);
// Makes the tool the subreaper of its descendants (once; false where the OS
// has no such thing).
bool adopt_orphans();
// Kills every child of the tool that fork_child did not make (and the
// process group it leads), and reaps it. How many there were.
int kill_strays();
// The same, for the strays among `listing` (a list_processes() of a moment
// ago), without scanning /proc again.
int kill_strays(const std::vector<ProcessEntry>& listing);

}  // namespace kernelblaster
