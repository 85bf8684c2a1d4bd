// Reads the current SM clock through NVML, loaded at run time so that a
// harness never needs the driver's management library to start.
#pragma once

#include <string>

namespace kernelblaster {

// MHz, or 0 when NVML is missing or refuses. `uuid` is "GPU-xxxxxxxx-...".
double read_sm_clock_mhz(const std::string& uuid);

}  // namespace kernelblaster
