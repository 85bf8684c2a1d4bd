#include "common/process_tree.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace kernelblaster {
namespace {

TEST(ProcessTree, ReadsThisProcess) {
  std::optional<ProcessEntry> self = read_process(::getpid());
  ASSERT_TRUE(self);
  EXPECT_EQ(self->parent, ::getppid());
  EXPECT_EQ(self->group, ::getpgrp());
  EXPECT_GT(self->resident_bytes, 0u);
  EXPECT_FALSE(self->zombie);
  EXPECT_FALSE(read_process(-5));
  std::vector<ProcessEntry> all = list_processes();
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const ProcessEntry& e) { return e.pid == ::getpid(); }));
}

TEST(ProcessTree, DescendantsAndGroupMembersBelongToTheTree) {
  auto entry = [](pid_t pid, pid_t parent, pid_t group) {
    ProcessEntry e;
    e.pid = pid;
    e.parent = parent;
    e.group = group;
    return e;
  };
  const std::vector<ProcessEntry> all = {
      entry(1, 0, 1),
      entry(10, 1, 10),   // the root
      entry(11, 10, 10),  // its child
      entry(12, 11, 12),  // a grandchild that left the group (setsid)
      entry(15, 12, 12),  // and its child
      entry(13, 1, 10),   // a group member whose parent ended (adopted elsewhere)
      entry(14, 1, 14),   // unrelated
      entry(16, 14, 10),  // in the root's group, though not descended from it
  };
  std::vector<pid_t> pids;
  for (const ProcessEntry& e : process_tree(all, 10)) pids.push_back(e.pid);
  EXPECT_EQ(pids, (std::vector<pid_t>{10, 11, 12, 13, 15, 16}));
  EXPECT_TRUE(process_tree(all, 99).empty());
}

}  // namespace
}  // namespace kernelblaster
