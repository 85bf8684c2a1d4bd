#include "common/namespaces.h"

#include "common/children.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kernelblaster {
namespace {

// Writes `text` to a /proc file in one write; async-signal-safe.
bool write_proc(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// A new network namespace: directly with CAP_SYS_ADMIN, else inside a new
// user namespace (unprivileged).
bool leave_network() { return ::unshare(CLONE_NEWNET) == 0 || ::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0; }

// The view: a user namespace that keeps the child's ids, a mount namespace
// whose mounts no longer propagate, an empty read-only tmpfs over each
// hidden directory, then a nested user and mount namespace that locks them
// and leaves no capability to the program the child becomes.
bool enter_view(const NamespacePlan& p) {
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS | (p.network ? CLONE_NEWNET : 0)) != 0) return false;
  (void)write_proc("/proc/self/setgroups", "deny");  // absent before Linux 3.19, where gid_map needs no denial
  if (!write_proc("/proc/self/uid_map", p.uid_map) || !write_proc("/proc/self/gid_map", p.gid_map)) return false;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  for (const std::string& dir : p.hidden)
    if (::mount("kernelblaster-hidden", dir.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "size=4k,mode=0555") != 0 &&
        errno != ENOENT)
      return false;
  return ::unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0;
}

// Runs `trial` in a throwaway child; true when it exits 0.
template <typename Trial>
bool child_succeeds(Trial trial) {
  pid_t pid = fork_child();
  if (pid < 0) return false;
  if (pid == 0) _exit(trial() ? 0 : 1);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  forget_child(pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

NamespacePlan namespace_plan(bool network, const std::vector<std::string>& hidden) {
  NamespacePlan p;
  p.network = network;
  p.hidden = hidden;
  p.uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
  p.gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
  return p;
}

bool enter_namespaces(const NamespacePlan& plan) {
  if (plan.view()) return enter_view(plan);
  return !plan.network || leave_network();
}

bool network_isolation_available() {
  static const bool available = child_succeeds(leave_network);
  return available;
}

bool view_isolation_available() {
  static const bool available = [] {
    // A directory with a file in it, hidden in the child: the file must be gone there.
    char dir_template[] = "/tmp/kernelblaster-view-XXXXXX";
    const char* dir = ::mkdtemp(dir_template);
    if (!dir) return false;
    const std::string secret = std::string(dir) + "/secret";
    std::ofstream(secret) << "x";
    const NamespacePlan plan = namespace_plan(false, {dir});
    const bool hidden = child_succeeds([&] { return enter_view(plan) && ::access(secret.c_str(), F_OK) != 0; });
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    return hidden;
  }();
  return available;
}

}  // namespace kernelblaster
