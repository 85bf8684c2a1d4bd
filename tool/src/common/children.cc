#include "common/children.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/file_util.h"

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

// The parent process id in /proc/PID/stat ("pid (comm) state ppid ..."; the
// command may hold spaces and parentheses, so read after the last ')'), or -1.
pid_t parent_of(const std::string& pid) {
  std::string stat;
  try {
    stat = read_file("/proc/" + pid + "/stat");
  } catch (const std::exception&) {
    return -1;  // gone meanwhile
  }
  std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 4 > stat.size()) return -1;
  const char* p = stat.c_str() + close + 2;  // the state letter
  if (*p == '\0' || p[1] != ' ') return -1;
  char* end = nullptr;
  long ppid = std::strtol(p + 2, &end, 10);
  return end == p + 2 ? -1 : static_cast<pid_t>(ppid);
}

// Children of this process that fork_child did not make. Caller holds the lock.
std::vector<pid_t> strays_locked() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = static_cast<pid_t>(std::strtol(name.c_str(), nullptr, 10));
    if (pid != self && !registry().count(pid) && parent_of(name) == self) out.push_back(pid);
  }
  return out;
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
    std::vector<pid_t> strays = strays_locked();
    if (strays.empty()) break;
    for (pid_t pid : strays) {
      ::kill(-pid, SIGKILL);  // the group it leads, if it set one up
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      ++killed;
    }
  }
  return killed;
}

}  // namespace kernelblaster
