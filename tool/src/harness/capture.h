// A capture: the calls a program made to one host launcher, as recorded
// while it ran (issue 13: `kernelblaster capture`). One JSON file:
//
//   {"format": "kernelblaster-capture-1", "source": "scale.cu",
//    "launcher": {"name": "scale_shift", "namespaces": [], "extern_c": false,
//                 "return_type": "void", "line": 12,
//                 "params": [{"name": "x", "type": "const float *", "canonical": "const float *",
//                             "kind": "buffer", "writable": false, "element": "f32"}, ...]},
//    "calls": [{"args": [{"elements": 1000000, "written": false},
//                        {"elements": 1000000, "written": true},
//                        {"value": "2.5"}, {"value": "0.5"}, {"value": "1000000"}]}, ...]}
//
// One argument per parameter, in order: a buffer's extent in elements (of
// its element type), whether the call changed it, and for integer buffers
// optionally the "min" and "max" of what it held; a scalar's value as text.
// Reading validates everything and throws CaptureError with a one-line
// reason naming the JSON pointer of the first bad entry.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/launcher.h"

namespace kernelblaster::harness {

class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RecordedArg {
  std::int64_t elements = -1;  // buffers
  bool written = false;        // buffers: the call changed it
  std::optional<double> min, max;  // integer buffers, when recorded
  std::string value;           // scalars
};

struct RecordedCall {
  std::vector<RecordedArg> args;  // one per launcher parameter
};

struct Capture {
  std::string source;
  Launcher launcher;
  std::vector<RecordedCall> calls;
};

inline constexpr const char* kCaptureFormat = "kernelblaster-capture-1";

Capture parse_capture(const std::string& text, const std::string& where);
std::string capture_to_json(const Capture& c);

const char* param_kind_name(ParamKind k);

}  // namespace kernelblaster::harness
