// Recorded calls gathered into captures. The recording shim
// (kernelblaster/capture.h) appends one JSON line per recorded call to a
// lines file; gathering groups them by (source, launcher) into captures in
// the format of capture.h, each validated as `harness synth` reads it.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/capture.h"

namespace kernelblaster::harness {

struct Gathered {
  std::vector<Capture> captures;    // one per (source, launcher signature) that was called
  std::vector<std::string> errors;  // one line per launcher whose calls were refused
  int left_out = 0;    // calls with a buffer outside device memory
  std::map<std::string, int> left_out_by_source;  // the same, per recorded source
  int unreadable = 0;  // lines that are not a recorded call
};

// Reads the lines file (a missing file gathers nothing). `where` names the
// captures in errors.
Gathered gather_recorded_calls(const std::string& lines_path);

// The capture file name for one: "<source stem>.<launcher>.capture.json".
std::string capture_file_name(const Capture& c);

}  // namespace kernelblaster::harness
