// The facts a report carries about the GPU it ran on.
#pragma once

#include "common/protocol.h"

namespace kernelblaster {

// Reads device `device`'s properties; creates no context. Throws CudaFailure.
DeviceInfo read_device_info(int device);

}  // namespace kernelblaster
