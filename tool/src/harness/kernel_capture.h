// Kernel-level captures (issue 27): the launches the kernel recorder
// (tool/src/recorder) wrote while a project's tests ran, read back and turned
// into harness parts. A recorded kernel becomes a launcher the harness
// defines itself: it takes the kernel's buffers and scalars and the launch
// configuration (grid, block, dynamic shared memory, as dimensions with their
// recorded values), and launches the kernel through its host stub
// (kernel_symbol(), cudaLaunchKernel), as the program did. Arguments a
// harness cannot make (a struct passed by value, a null pointer) are passed
// as the bytes recorded; a launch whose pointer argument was not device
// memory, or that aliases buffers differently from the first, is left out.
#pragma once

#include <string>
#include <vector>

#include "common/kernel_replay.h"
#include "recorder/kernel_signature.h"
#include "harness/capture.h"

namespace kernelblaster::harness {

struct RecordedParam {
  std::vector<unsigned char> bytes;
  bool buffer = false;
  long long extent = 0;  // bytes, from the pointer to its allocation's end
  std::optional<bool> written;
  std::optional<double> min, max;
  int same_as = -1;  // an earlier parameter passed the same pointer
};

struct RecordedLaunch {
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned shared = 0;
  std::vector<RecordedParam> params;
};

struct KernelRecording {
  std::string kernel;  // mangled
  std::string name;    // demangled
  recorder::KernelSignature signature;
  std::vector<RecordedLaunch> launches;
};

struct KernelRecords {
  std::vector<KernelRecording> kernels;
  std::vector<std::string> errors;  // one line per unreadable file or line
};

// Every kernel file in the recorder's directory (a missing one reads nothing).
KernelRecords read_kernel_records(const std::string& dir);

// A recording as a capture whose launcher the harness defines: the launcher
// (name "k_<kernel>", its parameters p0.. and grid_x .. shared_bytes), the
// launches as calls, and in `definition` the launcher's text. Launches a
// harness cannot replay are dropped and said in `left_out`.
struct KernelCapture {
  Capture capture;
  std::string definition;
  std::vector<std::string> left_out;
};
// `launcher_name` replaces "k_<kernel>" where two recorded kernels of one
// name (overloads) would otherwise define the same launcher and buffers.
KernelCapture kernel_capture(const KernelRecording& r, const std::string& source,
                             const std::string& launcher_name = "");

using kernelblaster::kKernelReplayMarker;  // the line its harness carries (common/kernel_replay.h)

}  // namespace kernelblaster::harness
