// Runs a program in its own process group with a deadline, capturing its
// output: the isolation that keeps a crashing or hanging candidate from
// taking the tool down.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kernelblaster {

struct ProcessResult {
  int exit_code = -1;     // valid when !signaled && !timed_out
  bool signaled = false;  // killed by a signal it did not ask for
  int signal = 0;
  bool timed_out = false; // we killed it at the deadline
  bool spawn_failed = false;
  std::string output;     // stdout and stderr interleaved, capped (tail kept)
  double seconds = 0;

  bool ok() const { return !spawn_failed && !signaled && !timed_out && exit_code == 0; }
  // One line saying how it ended, e.g. "killed by SIGSEGV" or "exit 3".
  std::string how_it_ended() const;
  // The last non-empty lines of the output, joined by " | ".
  std::string output_tail(int lines = 3) const;
};

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
};

// Environment variables that hold secrets (the LLM API keys). No child ever
// gets them: run_process removes them from every environment it builds.
bool is_secret_env_name(const std::string& name);

// argv[0] is looked up in PATH. Never throws for a failing child.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace kernelblaster
