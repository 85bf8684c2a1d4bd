// Runs a program in its own process group with a deadline, capturing its
// output: the isolation that keeps a crashing or hanging candidate from
// taking the tool down.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kernelblaster {

struct ProcessResult {
  int exit_code = -1;     // valid when !signaled && !timed_out
  bool signaled = false;  // killed by a signal it did not ask for
  int signal = 0;
  bool timed_out = false; // we killed it at the deadline
  bool cancelled = false; // we killed it because ProcessOptions::cancel said so
  bool spawn_failed = false;
  std::string output;     // stdout and stderr interleaved, capped (tail kept)
  double seconds = 0;
  bool network_isolated = false;  // limits.no_network was asked and applied
  bool view_isolated = false;     // limits.hidden_dirs were asked and hidden
  int strays_killed = 0;          // limits.contain: processes that left its group, killed
  // limits.resident_bytes: it and its descendants held more; all were killed.
  bool memory_exceeded = false;
  std::uint64_t resident_limit_bytes = 0;  // the limit it ran under (0: none)
  // The most memory it held: the largest resident total of it and its
  // descendants seen while watched (limits.contain or resident_bytes), and
  // at least its own peak resident set (from the kernel, at its end).
  std::uint64_t peak_resident_bytes = 0;

  bool ok() const {
    return !spawn_failed && !signaled && !timed_out && !cancelled && !memory_exceeded && exit_code == 0;
  }
  // One line saying how it ended, e.g. "killed by SIGSEGV" or "exit 3".
  std::string how_it_ended() const;
  // The last non-empty lines of the output, joined by " | ".
  std::string output_tail(int lines = 3) const;
};

// What a child may use: resource limits, and no network. Applied in the
// child before exec; every field off by default.
struct ProcessLimits {
  double cpu_s = 0;               // RLIMIT_CPU: CPU seconds (0: no limit)
  std::uint64_t file_bytes = 0;   // RLIMIT_FSIZE: the largest file it may write (0: no limit)
  std::uint64_t memory_bytes = 0; // RLIMIT_AS (0: no limit). Not for CUDA processes: the
                                  // driver reserves address ranges far beyond what they use
  // What the child and its descendants may hold resident together (0: no
  // limit), watched every kWatchInterval: over it, all of them are killed
  // and ProcessResult::memory_exceeded is set. Memory, not address space, so
  // it suits CUDA processes; a burst faster than the interval can overshoot.
  std::uint64_t resident_bytes = 0;
  bool no_core = false;           // RLIMIT_CORE 0: a crash leaves no core file
  // A new, empty network namespace (not even loopback is up) where the OS
  // allows one: unshare(CLONE_NEWNET), else with a new user namespace.
  // ProcessResult::network_isolated says whether it was.
  bool no_network = false;
  // Nothing it starts leaves its process group for long, or outlives it:
  // while it runs, a descendant seen outside its group (setsid, setpgid) is
  // killed at the next watch; the tool is the subreaper of its descendants
  // (children.h), so one that escaped by a double fork is handed to the tool
  // and killed as a stray, at the next watch or when the child ends. The
  // group itself is killed in any case.
  bool contain = false;
  // Directories the child sees empty and read-only (absolute paths): its
  // own file-system view, where the OS allows one (common/namespaces.h);
  // ProcessResult::view_isolated says whether it was.
  std::vector<std::string> hidden_dirs;
};

// How often a child under `contain` or `resident_bytes` is looked at.
inline constexpr double kWatchInterval = 0.1;

struct ProcessOptions {
  double timeout_s = 60;
  std::string cwd;                                 // empty: inherit
  std::map<std::string, std::string> extra_env;    // added to the inherited environment
  std::size_t output_cap = 1 << 20;                // bytes kept (the tail)
  // When set, `timeout_s` starts only once this file exists (a harness writes
  // it when it holds the GPU lock), so waiting for a busy GPU is not running
  // late; until then the process gets `start_timeout_s`.
  std::string start_marker;
  double start_timeout_s = 660;
  // Read as the child's stdin (empty: /dev/null).
  std::string stdin_file;
  // When set, the child's stderr goes to this file instead of `output`, so
  // `output` holds stdout alone.
  std::string stderr_file;
  ProcessLimits limits;
  // Asked every few milliseconds while the child runs; true kills it (its
  // whole group) and ends the wait with `cancelled` set: the caller no
  // longer needs its result.
  std::function<bool()> cancel;
};

// Environment variables that hold secrets (the LLM API keys). No child ever
// gets them: run_process removes them from every environment it builds.
bool is_secret_env_name(const std::string& name);
// The kernel recorder's variables (CUDA_INJECTION64_PATH, KERNELBLASTER_KERNEL_CAPTURE_DIR):
// a project's test may run the tool, whose children (harnesses, with CUPTI
// of their own) must not be recorded. Never passed to a child either.
bool is_recorder_env_name(const std::string& name);


// argv[0] is looked up in PATH. Never throws for a failing child.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace kernelblaster
