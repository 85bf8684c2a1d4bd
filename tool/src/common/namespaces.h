// What a child process gets of its own, entered between fork and exec
// (run_process): a network namespace with nothing up, and a view of the
// file system in which chosen directories are empty and read-only (issue
// 39: a candidate's process cannot read the original's outputs, torch's
// answer or the plan they were made with, nor write over them).
//
// The view is a mount namespace inside a user namespace of the child's
// own: the hidden directories get an empty read-only tmpfs over them, and a
// second, nested user and mount namespace then locks those mounts (the
// kernel refuses to unmount a mount inherited across a user namespace) and
// leaves the child with no capabilities once it execs. Where the OS allows
// no user namespace, no view is had; the caller says so.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster {

// Made in the parent, read in the child: nothing allocates after fork.
struct NamespacePlan {
  bool network = false;              // a new network namespace
  std::vector<std::string> hidden;   // absolute directories to cover (a missing one is skipped)
  std::string uid_map, gid_map;      // "<id> <id> 1": the child keeps its ids in its first user namespace

  bool view() const { return !hidden.empty(); }
};

// The plan for `hidden` (and a network namespace when `network`), with this
// process's ids.
NamespacePlan namespace_plan(bool network, const std::vector<std::string>& hidden);

// In the child after fork, before exec; async-signal-safe calls only. False
// when a namespace could not be had.
bool enter_namespaces(const NamespacePlan& plan);

// Whether this machine lets a child have a network namespace, and a view
// of its own (each asked once per process, by a throwaway child that tries).
bool network_isolation_available();
bool view_isolation_available();

}  // namespace kernelblaster
