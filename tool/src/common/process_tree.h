// The processes of this machine as /proc shows them: parent, process group
// and resident memory, enough to tell a child's descendants, the ones that
// left its group, and how much memory they hold together.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace kernelblaster {

struct ProcessEntry {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;                   // process group id
  std::uint64_t resident_bytes = 0;  // resident set (private, shared and file pages)
  bool zombie = false;
};

// One process, or nothing when it is gone (or /proc is unreadable).
std::optional<ProcessEntry> read_process(pid_t pid);
// Every process /proc lists now; those that end meanwhile are left out.
std::vector<ProcessEntry> list_processes();
// `root` and everything descended from it by parent links, or in the
// process group `root` leads (a member whose parent ended was handed to a
// subreaper, but stays in the group).
std::vector<ProcessEntry> process_tree(const std::vector<ProcessEntry>& all, pid_t root);

}  // namespace kernelblaster
