// The winner's program once under compute-sanitizer's memcheck (issue 38):
// kernels written for the author's sizes check no bounds, and the guard
// bytes around each buffer see only writes; memcheck sees every invalid
// global or shared access, reads included. It runs where the toolkit has
// the sanitizer, and says so in one line where it could not run; only
// errors memcheck reports reject (a sanitizer that cannot start, or does
// not finish, leaves the verdict as it was and says why).
#pragma once

#include <string>
#include <vector>

namespace kernelblaster {

// Exit code asked of the sanitizer when it finds errors: none a harness uses.
inline constexpr int kMemcheckErrorExit = 86;
inline constexpr double kMemcheckTimeoutSeconds = 120;

// compute-sanitizer: KERNELBLASTER_COMPUTE_SANITIZER ("off": none), else
// next to `nvcc`, else on PATH; empty when there is none, with `why` set.
std::string find_compute_sanitizer(const std::string& nvcc, std::string* why);

// The words put before the harness's own command line.
std::vector<std::string> memcheck_command(const std::string& sanitizer, const std::string& log_file);

struct MemcheckFinding {
  bool errors = false;   // memcheck reported at least one invalid access
  std::string first;     // the first error and where ("Invalid __global__ read of size 16 bytes at sgemm(...)")
  int count = 0;         // from its ERROR SUMMARY, when it printed one
  bool summarized = false;  // it printed its ERROR SUMMARY: it ran to the end
};

// Reads the sanitizer's log; `exit_code` (-1: none, killed or timed out)
// is the sanitizer's, which says errors where a torn log may not.
MemcheckFinding read_memcheck_log(const std::string& log_text, int exit_code = -1);

}  // namespace kernelblaster
