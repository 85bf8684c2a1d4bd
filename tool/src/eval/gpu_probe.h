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

// Asks the CUDA runtime (statically linked, so no GPU is needed to start).
class CudaGpuProbe final : public GpuProbe {
 public:
  GpuInfo probe(int device) override;
};

}  // namespace kernelblaster
