// Whether this machine has a GPU to evaluate on. A seam: tests swap it.
#pragma once

#include <string>

namespace kernelblaster {

struct GpuInfo {
  bool present = false;
  std::string reason;  // why not, when !present
  std::string name;
  std::string arch;    // "sm_90"
};

class GpuProbe {
 public:
  virtual ~GpuProbe() = default;
  virtual GpuInfo probe(int device) = 0;
};

// The NVIDIA device node of this machine ("/dev/nvidiactl", ...), or empty
// where there is none. Without a GPU a tool that needs one skips (exit 77);
// with a device node there, CUDA failing is a broken driver or runtime, and
// a skip would hide it.
std::string nvidia_device_node();

// Asks the CUDA runtime (statically linked, so no GPU is needed to start).
class CudaGpuProbe final : public GpuProbe {
 public:
  GpuInfo probe(int device) override;
};

}  // namespace kernelblaster
