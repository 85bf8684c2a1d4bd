// What a harness process (the original's or a candidate's code, on the GPU)
// may use. The engine runs every one under harness_process_limits().
#pragma once

#include <cstdint>
#include <string>

#include "common/subprocess.h"

namespace kernelblaster {

// No core files; CPU time (all threads) and file size bounded, as a backstop
// to the wall-clock deadline; nothing it starts leaves its group or outlives
// it (ProcessLimits::contain: an escaped process could rewrite the dumps
// being judged); no network where the OS allows it; and a limit on the
// memory it and its descendants hold (resident, not address space: the CUDA
// driver reserves ranges far beyond what a process uses).
//   KERNELBLASTER_SANDBOX_NETWORK   on (default) | off
//   KERNELBLASTER_SANDBOX_MEMORY    a size (16G, 512M, bytes) | off;
//                                   default: default_harness_memory_bytes()
// Throws std::runtime_error, one line, for a value it cannot read.
ProcessLimits harness_process_limits();

// A candidate's process: `limits` with the original's run directory hidden
// from it (the original's outputs, torch's answer, the plan they were made
// with: an empty read-only directory in its own view of the file system,
// where the OS allows one), unless the candidate's program lies inside it or
//   KERNELBLASTER_SANDBOX_VIEW   on (default) | off
// Throws std::runtime_error, one line, for a value it cannot read.
ProcessLimits candidate_process_limits(ProcessLimits limits, const std::string& original_dir,
                                       const std::string& binary);

// Half the memory this process may use: the machine's, or its cgroup's
// limit where that is lower.
std::uint64_t default_harness_memory_bytes();

// "16G", "16GiB", "512M", "1048576" (binary units; K, M, G, T), or "off" /
// "0" for none (0). False for anything else.
bool parse_memory_size(const std::string& text, std::uint64_t* bytes);

}  // namespace kernelblaster
