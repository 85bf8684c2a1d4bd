// The recording shim of a kernel source (`kernelblaster capture shim`): a
// .cu file that holds the source with its launchers renamed, and defines
// each launcher again with the original signature. The new definition
// records the call (kernelblaster/capture.h) and calls the original. A
// build compiles the shim in the source's place to capture; nothing is
// recorded unless KERNELBLASTER_CAPTURE_FILE or KERNELBLASTER_CAPTURE_DIR
// is set (kernelblaster/capture.h).
#pragma once

#include <string>
#include <vector>

#include "harness/launcher.h"

namespace kernelblaster::harness {

// One shim for every launcher of the source. `source_path`: absolute,
// normally. `name`, when given, is the file the shim records into under
// KERNELBLASTER_CAPTURE_DIR ("<target>/<stem>", the CMake module's: each
// source its own file, and no path in the binary); without it the shim
// records only where KERNELBLASTER_CAPTURE_FILE is set. With `source_text` (the source as scanned,
// launchers with their offsets), the shim holds the source with each
// launcher's definition renamed where it stands, so the file's own calls of
// its launchers are recorded too (compile it with -I the source's
// directory); else, or where a definition cannot be placed, it #includes
// the source with the launchers renamed by macros, and only calls from
// other files are recorded.
std::string capture_shim(const std::vector<Launcher>& launchers, const std::string& source_path,
                         const std::string& name = "", const std::string& source_text = "");

// The launcher as capture JSON (harness/capture.h "launcher"), on one line.
std::string launcher_json(const Launcher& l);

}  // namespace kernelblaster::harness
