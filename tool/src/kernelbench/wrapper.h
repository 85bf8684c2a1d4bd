// The seam between the driver and a kernel source. The kernel source is
// compiled with -Dlaunch_gpu_implementation=kb_candidate_launch, and a
// generated kb_wrapper.cu defines the real launcher, which hands the call
// (its pointer arguments, their names, the integer arguments) to the
// runtime's on_launch (kernelblaster/kernelbench_runtime.h): the driver
// stays untouched in what it calls, and the tool gets control around every
// launch.
#pragma once

#include <string>

#include "kernelbench/prototype.h"

namespace kernelblaster::kernelbench {

inline constexpr const char* kRenamedLauncher = "kb_candidate_launch";

// nvcc flag renaming the launcher in a kernel source.
std::string rename_flag();

// kb_wrapper.cu. `driver_decl` is the driver's prototype (what the driver
// calls); `kernel_def` is the kernel source's definition (what gets called:
// its own parameter types, so `const void*` there still links).
std::string make_wrapper_source(const Prototype& driver_decl, const Prototype& kernel_def);

// The kernel source with `extern "C"`, `static` and `inline` dropped from
// every declaration and definition of the launcher: the wrapper needs an
// external C++ symbol to call (an inline or static launcher would never be
// emitted). Line numbers are kept.
std::string prepare_kernel_source(const std::string& source, const std::string& launcher_name);

}  // namespace kernelblaster::kernelbench
