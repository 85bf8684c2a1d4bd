// The recording shim of a kernel source (`kernelblaster capture shim`): a
// .cu file that includes the source with its launcher renamed, and defines
// the launcher again with the original signature. The new definition
// records the call (kernelblaster/capture.h) and calls the original. A
// build compiles the shim in the source's place to capture; nothing is
// recorded unless KERNELBLASTER_CAPTURE_FILE is set.
#pragma once

#include <string>
#include <vector>

#include "synth/launcher.h"

namespace kernelblaster::synth {

// One shim for every launcher of the source. `source_path`: as the shim
// should #include it (absolute, normally). `default_file`, when given, is
// where calls are recorded without KERNELBLASTER_CAPTURE_FILE set (the CMake
// module's shims: every run of the project's programs records).
std::string capture_shim(const std::vector<Launcher>& launchers, const std::string& source_path,
                         const std::string& default_file = "");

// The launcher as capture JSON (synth/capture.h "launcher"), on one line.
std::string launcher_json(const Launcher& l);

}  // namespace kernelblaster::synth
