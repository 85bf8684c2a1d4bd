// The NVIDIA kernel driver's version, read from /proc (no GPU API needed).
#pragma once

#include <string>

namespace kernelblaster::runtime {

// "580.65.06" from the text of /proc/driver/nvidia/version; "" if absent.
std::string driver_version_from_text(const std::string& proc_text);
// Reads /proc/driver/nvidia/version; "" where there is none.
std::string kernel_driver_version();
// The leading number of a version ("580.65.06" -> 580); 0 for "".
int version_major(const std::string& version);

}  // namespace kernelblaster::runtime
