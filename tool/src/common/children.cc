#include "common/children.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <set>
#include <vector>

#include "common/process_tree.h"

namespace kernelblaster {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::set<pid_t>& registry() {
  static std::set<pid_t> children;
  return children;
}

// Children of this process that fork_child did not make. Caller holds the lock.
std::vector<pid_t> strays_locked(const std::vector<ProcessEntry>& listing) {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  for (const ProcessEntry& e : listing)
    if (e.pid != self && e.parent == self && !registry().count(e.pid)) out.push_back(e.pid);
  return out;
}

// Caller holds the lock.
int kill_locked(const std::vector<pid_t>& strays) {
  for (pid_t pid : strays) {
    ::kill(-pid, SIGKILL);  // the group it leads, if it set one up
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  return static_cast<int>(strays.size());
}

}  // namespace

pid_t fork_child() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  pid_t pid = ::fork();
  if (pid > 0) registry().insert(pid);
  return pid;
}

void forget_child(pid_t pid) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(pid);
}

bool adopt_orphans() {
  static const bool adopted = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  return adopted;
}

int kill_strays() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  int killed = 0;
  // A stray's own children become strays when it dies: a few rounds.
  for (int round = 0; round < 16; ++round) {
    std::vector<pid_t> strays = strays_locked(list_processes());
    if (strays.empty()) break;
    killed += kill_locked(strays);
  }
  return killed;
}

int kill_strays(const std::vector<ProcessEntry>& listing) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  // Still the tool's child now? (Another thread may have reaped it since.)
  std::vector<pid_t> strays;
  for (pid_t pid : strays_locked(listing)) {
    std::optional<ProcessEntry> now = read_process(pid);
    if (now && now->parent == ::getpid()) strays.push_back(pid);
  }
  return kill_locked(strays);
}

}  // namespace kernelblaster
