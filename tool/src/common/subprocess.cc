#include "common/subprocess.h"

#include "common/children.h"
#include "common/namespaces.h"
#include "common/process_tree.h"
#include "common/text.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

extern char** environ;

namespace kernelblaster {

std::string ProcessResult::how_it_ended() const {
  if (spawn_failed) return "could not start: " + output_tail(1);
  if (timed_out) return "killed after the " + std::to_string(static_cast<int>(seconds + 0.5)) + " s deadline";
  if (memory_exceeded)
    return "killed holding " + bytes_text(peak_resident_bytes) + " resident, over its " +
           bytes_text(resident_limit_bytes) + " limit";
  if (cancelled) return "stopped: its result was no longer needed";
  if (signaled) {
    const char* name = sigabbrev_np(signal);
    return std::string("killed by SIG") + (name ? name : std::to_string(signal).c_str());
  }
  return "exit " + std::to_string(exit_code);
}

std::string ProcessResult::output_tail(int lines) const {
  std::vector<std::string> all;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > static_cast<std::size_t>(lines) ? all.size() - lines : 0; i < all.size(); ++i)
    out += (out.empty() ? "" : " | ") + all[i];
  return out;
}

bool is_secret_env_name(const std::string& name) {
  return name == "KERNELBLASTER_LLM_API_KEY" || name == "OPENAI_API_KEY" || name == "ANTHROPIC_API_KEY";
}

bool is_recorder_env_name(const std::string& name) {
  return name == "CUDA_INJECTION64_PATH" || name == "KERNELBLASTER_KERNEL_CAPTURE_DIR";
}

namespace {

// Never above the limit the tool itself runs under (only root may raise it).
// `grace` above the soft limit for the hard one: CPU time past the soft
// limit gets SIGXCPU, which names the cause, before the hard limit's SIGKILL.
bool set_limit(int resource, rlim_t value, rlim_t grace = 0) {
  struct rlimit rl;
  if (::getrlimit(resource, &rl) != 0) return false;
  rlim_t hard = value + grace;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < hard) hard = rl.rlim_max;
  rl.rlim_cur = value < hard ? value : hard;
  rl.rlim_max = hard;
  return ::setrlimit(resource, &rl) == 0;
}

// In the child, before exec.
bool apply_limits(const ProcessLimits& l, const NamespacePlan& ns) {
  if (l.cpu_s > 0 && !set_limit(RLIMIT_CPU, static_cast<rlim_t>(std::ceil(l.cpu_s)), 2)) return false;
  if (l.file_bytes > 0 && !set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(l.file_bytes))) return false;
  if (l.memory_bytes > 0 && !set_limit(RLIMIT_AS, static_cast<rlim_t>(l.memory_bytes))) return false;
  if (l.no_core && !set_limit(RLIMIT_CORE, 0)) return false;
  if (!enter_namespaces(ns)) return false;
  return true;
}

// One look at a watched child (ProcessLimits::contain, resident_bytes):
// kills what left its group, adds up what the rest hold. False when that
// is over the limit.
bool watch(pid_t pid, const ProcessLimits& l, ProcessResult& r) {
  std::vector<ProcessEntry> all = list_processes();
  std::vector<ProcessEntry> tree = process_tree(all, pid);
  std::uint64_t held = 0;
  for (const ProcessEntry& e : tree) {
    if (l.contain && e.group != pid && !e.zombie) {  // setsid, setpgid: it left the group
      ::kill(e.pid, SIGKILL);
      ++r.strays_killed;
      continue;
    }
    held += e.resident_bytes;
  }
  // Escaped by a double fork: handed to the tool, no longer in the tree.
  if (l.contain) r.strays_killed += kill_strays(all);
  r.peak_resident_bytes = std::max(r.peak_resident_bytes, held);
  if (l.resident_bytes == 0 || held <= l.resident_bytes) return true;
  for (const ProcessEntry& e : tree) ::kill(e.pid, SIGKILL);  // the group's kill misses the ones outside it
  return false;
}


// The child's environment: ours without LLM keys and the kernel recorder's
// variables, with the caller's extra variables (never a key among them).
std::vector<std::string> child_environment(const ProcessOptions& opt) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    if (!opt.extra_env.count(name) && !is_secret_env_name(name) && !is_recorder_env_name(name)) env.push_back(kv);
  }
  for (const auto& [k, v] : opt.extra_env)
    if (!is_secret_env_name(k) && !is_recorder_env_name(k)) env.push_back(k + "=" + v);
  return env;
}

// In the forked child: its own process group, the pipe as stdout (and
// stderr unless a file is named), stdin, the directory, the limits, exec.
[[noreturn]] void become_child(char* const* args, char* const* envp, int out_fd, const ProcessOptions& opt,
                               const NamespacePlan& ns) {
  ::setpgid(0, 0);  // its own group, so a kill reaches its children too
  ::dup2(out_fd, 1);
  int errfd = opt.stderr_file.empty() ? out_fd : ::open(opt.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (errfd >= 0) ::dup2(errfd, 2);
  int in = ::open(opt.stdin_file.empty() ? "/dev/null" : opt.stdin_file.c_str(), O_RDONLY);
  if (in < 0) _exit(126);
  ::dup2(in, 0);
  if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) _exit(126);
  if (!apply_limits(opt.limits, ns)) {
    const char* msg = "could not apply the process limits\n";
    (void)!::write(2, msg, std::strlen(msg));
    _exit(126);
  }
  ::execvpe(args[0], args, envp);
  const char* msg = "exec failed: ";
  (void)!::write(2, msg, std::strlen(msg));
  (void)!::write(2, args[0], std::strlen(args[0]));
  _exit(127);
}

// How the wait for the child ended.
struct Waited {
  bool exited = false;
  int status = 0;
  struct rusage usage {};
};

// Reads the child's output until it exits, its deadline passes (counted
// from its start marker where there is one), the caller cancels, or the
// watch finds a limit broken; r gets the output and which of these it was.
Waited wait_for_child(pid_t pid, int in_fd, const ProcessOptions& opt, std::chrono::steady_clock::time_point t0,
                      ProcessResult& r) {
  const bool watched = opt.limits.contain || opt.limits.resident_bytes > 0;
  bool started = opt.start_marker.empty();
  auto deadline = t0 + std::chrono::duration<double>(started ? opt.timeout_s : opt.start_timeout_s);
  char buf[65536];
  auto append = [&](ssize_t got) {
    r.output.append(buf, static_cast<std::size_t>(got));
    if (r.output.size() > opt.output_cap) r.output.erase(0, r.output.size() - opt.output_cap);
  };
  Waited w;
  bool open = true;
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(kWatchInterval));
  auto next_watch = std::chrono::steady_clock::now() + interval;
  while (!w.exited) {
    if (!started && ::access(opt.start_marker.c_str(), F_OK) == 0) {
      started = true;
      deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.timeout_s);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      break;
    }
    if (opt.cancel && opt.cancel()) {
      r.cancelled = true;
      break;
    }
    if (watched && std::chrono::steady_clock::now() >= next_watch) {
      if (!watch(pid, opt.limits, r)) {
        r.memory_exceeded = true;
        break;
      }
      next_watch = std::chrono::steady_clock::now() + interval;
    }
    if (open) {
      pollfd p{in_fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) {
        ssize_t got = ::read(in_fd, buf, sizeof buf);
        if (got > 0) append(got);
        else if (got == 0) open = false;
      }
    } else {
      ::usleep(2000);
    }
    // A grandchild may hold the pipe open after the child exits: watch the
    // child itself, not the end of the output.
    w.exited = ::wait4(pid, &w.status, WNOHANG, &w.usage) == pid;
  }
  if (w.exited && open) {
    ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
    for (ssize_t got; (got = ::read(in_fd, buf, sizeof buf)) > 0;) append(got);
  }
  return w;
}

// The child's group killed and reaped, strays killed, and how it ended.
void end_child(pid_t pid, Waited& w, const ProcessOptions& opt, ProcessResult& r) {
  ::kill(-pid, SIGKILL);  // on timeout the child, else leftovers of its group
  if (!w.exited)
    while (::wait4(pid, &w.status, 0, &w.usage) < 0 && errno == EINTR) {
    }
  // ru_maxrss: its own peak, in KiB; a watch may have seen more (its descendants too).
  r.peak_resident_bytes = std::max(r.peak_resident_bytes, static_cast<std::uint64_t>(w.usage.ru_maxrss) * 1024);
  forget_child(pid);
  // What left its group and outlived it: handed to the tool, killed here,
  // before the caller reads what the child wrote.
  if (opt.limits.contain) r.strays_killed += kill_strays();
  if (r.timed_out || r.cancelled || r.memory_exceeded) return;
  if (WIFSIGNALED(w.status)) {
    r.signaled = true;
    r.signal = WTERMSIG(w.status);
  } else if (WIFEXITED(w.status)) {
    r.exit_code = WEXITSTATUS(w.status);
    if (r.exit_code == 127 && r.output.rfind("exec failed", 0) == 0) r.spawn_failed = true;
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt) {
  ProcessResult r;
  auto t0 = std::chrono::steady_clock::now();
  int pipefd[2];
  if (argv.empty() || ::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.spawn_failed = true;
    r.output = argv.empty() ? "empty command" : std::strerror(errno);
    return r;
  }
  std::vector<std::string> env_store = child_environment(opt);
  std::vector<char*> envp, args;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_store = argv;
  for (auto& s : argv_store) args.push_back(s.data());
  args.push_back(nullptr);

  const bool isolate = opt.limits.no_network && network_isolation_available();
  const bool view = !opt.limits.hidden_dirs.empty() && view_isolation_available();
  const NamespacePlan ns = namespace_plan(isolate, view ? opt.limits.hidden_dirs : std::vector<std::string>{});
  r.network_isolated = isolate;
  r.view_isolated = view;
  r.resident_limit_bytes = opt.limits.resident_bytes;
  if (opt.limits.contain) adopt_orphans();
  pid_t pid = fork_child();
  if (pid < 0) {
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    return r;
  }
  if (pid == 0) become_child(args.data(), envp.data(), pipefd[1], opt, ns);
  ::setpgid(pid, pid);
  ::close(pipefd[1]);
  Waited w = wait_for_child(pid, pipefd[0], opt, t0, r);
  end_child(pid, w, opt, r);
  ::close(pipefd[0]);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kernelblaster
