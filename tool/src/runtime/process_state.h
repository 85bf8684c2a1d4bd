// What a harness or driver process may not change about itself while it
// runs the code it judges (issue 39): its environment and its signal
// handlers. The environment is compared with the block the process was
// started with (/proc/self/environ), so a static initializer's setenv counts
// too; the handlers between the end of setup and the report. The judge holds
// a candidate's changes against the original's: what the CUDA runtime, CUPTI
// or libtorch change by themselves shows in both.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kernelblaster {

using Environment = std::map<std::string, std::string>;  // NAME -> VALUE

// The environment the process was started with (empty where /proc is not
// mounted), and the one it sees now.
Environment initial_environment();
Environment current_environment();

// Each signal's handler (its address, or SIG_DFL/SIG_IGN), by number.
std::map<int, std::uintptr_t> signal_handlers();

// One phrase per change, in order: "PYTORCH_NO_CUDA_MEMORY_CACHING set in
// its environment", "... changed ...", "... removed ...", "its handler of
// SIGSEGV replaced".
std::vector<std::string> environment_changes(const Environment& before, const Environment& after);
std::vector<std::string> handler_changes(const std::map<int, std::uintptr_t>& before,
                                         const std::map<int, std::uintptr_t>& after);

// Watches one process: the started-with environment at once, the handlers
// from arm() (after setup) on; changes() says what differs now.
class ProcessWatch {
 public:
  ProcessWatch();
  void arm();
  std::vector<std::string> changes() const;

 private:
  Environment m_started_with;
  std::map<int, std::uintptr_t> m_handlers;
};

}  // namespace kernelblaster
