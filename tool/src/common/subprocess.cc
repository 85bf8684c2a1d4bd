#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

extern char** environ;

namespace kernelblaster {

std::string ProcessResult::how_it_ended() const {
  if (spawn_failed) return "could not start: " + output_tail(1);
  if (timed_out) return "killed after the " + std::to_string(static_cast<int>(seconds + 0.5)) + " s deadline";
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

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt) {
  ProcessResult r;
  auto t0 = std::chrono::steady_clock::now();
  int pipefd[2];
  if (argv.empty() || ::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.spawn_failed = true;
    r.output = argv.empty() ? "empty command" : std::strerror(errno);
    return r;
  }
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    if (!opt.extra_env.count(name) && !is_secret_env_name(name)) env_store.push_back(kv);
  }
  for (const auto& [k, v] : opt.extra_env)
    if (!is_secret_env_name(k)) env_store.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_store = argv;
  for (auto& s : argv_store) args.push_back(s.data());
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) {
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group, so a kill reaches its children too
    ::dup2(pipefd[1], 1);
    int errfd = opt.stderr_file.empty() ? pipefd[1] : ::open(opt.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (errfd >= 0) ::dup2(errfd, 2);
    int in = ::open(opt.stdin_file.empty() ? "/dev/null" : opt.stdin_file.c_str(), O_RDONLY);
    if (in < 0) _exit(126);
    ::dup2(in, 0);
    if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) _exit(126);
    ::execvpe(args[0], args.data(), envp.data());
    const char* msg = "exec failed: ";
    (void)!::write(2, msg, std::strlen(msg));
    (void)!::write(2, args[0], std::strlen(args[0]));
    _exit(127);
  }
  ::setpgid(pid, pid);
  ::close(pipefd[1]);
  bool started = opt.start_marker.empty();
  auto deadline = t0 + std::chrono::duration<double>(started ? opt.timeout_s : opt.start_timeout_s);
  char buf[65536];
  auto append = [&](ssize_t got) {
    r.output.append(buf, static_cast<std::size_t>(got));
    if (r.output.size() > opt.output_cap) r.output.erase(0, r.output.size() - opt.output_cap);
  };
  int status = 0;
  bool exited = false, open = true;
  while (!exited) {
    if (!started && ::access(opt.start_marker.c_str(), F_OK) == 0) {
      started = true;
      deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.timeout_s);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      break;
    }
    if (open) {
      pollfd p{pipefd[0], POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) {
        ssize_t got = ::read(pipefd[0], buf, sizeof buf);
        if (got > 0) append(got);
        else if (got == 0) open = false;
      }
    } else {
      ::usleep(2000);
    }
    // A grandchild may hold the pipe open after the child exits: watch the
    // child itself, not the end of the output.
    exited = ::waitpid(pid, &status, WNOHANG) == pid;
  }
  if (exited && open) {
    ::fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    for (ssize_t got; (got = ::read(pipefd[0], buf, sizeof buf)) > 0;) append(got);
  }
  ::kill(-pid, SIGKILL);  // on timeout the child, else leftovers of its group
  if (!exited) ::waitpid(pid, &status, 0);
  ::close(pipefd[0]);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.timed_out) {
    if (WIFSIGNALED(status)) {
      r.signaled = true;
      r.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      r.exit_code = WEXITSTATUS(status);
      if (r.exit_code == 127 && r.output.rfind("exec failed", 0) == 0) r.spawn_failed = true;
    }
  }
  return r;
}

}  // namespace kernelblaster
