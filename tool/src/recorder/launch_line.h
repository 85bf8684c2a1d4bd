// One recorded kernel launch as the recorder writes it: a JSON line in the
// kernel's own file (kernel_file_name), so two kernels never share a file.
//
//   {"format": "kernelblaster-launch-1", "kernel": "_Z6scalePfif",
//    "name": "scale(float*, int, float)", "key": "<shape key>",
//    "grid": [256, 1, 1], "block": [256, 1, 1], "shared": 0,
//    "params": [{"offset": 0, "bytes": "00a0...", "buffer": {"extent": 262144,
//                "alloc_offset": 0, "written": true, "min": -3.1, "max": 2.9}},
//               {"offset": 8, "bytes": "00000100"}, ...]}
//
// "bytes" is the argument as the launch passed it (hex, the driver's size);
// a buffer is a pointer the driver resolved to device memory: its extent in
// bytes from the pointer to the allocation's end, whether the launch changed
// it ("written" is absent when it was too large to copy), and the range of
// values it held before the launch, for arithmetic element types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernelblaster::recorder {

inline constexpr const char* kLaunchFormat = "kernelblaster-launch-1";

struct ParamBytes {
  std::size_t offset = 0;
  std::vector<unsigned char> bytes;
  bool buffer = false;
  std::uint64_t address = 0;  // not written out: differs between runs
  std::uint64_t extent = 0, alloc_offset = 0;
  bool written_known = false, written = false;
  std::optional<double> min, max;
};

struct LaunchLine {
  std::string kernel;     // the mangled name
  std::string demangled;  // as the C++ ABI demangles it (the mangled name when it cannot)
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned shared = 0;
  std::vector<ParamBytes> params;
};

// What tells two launches apart for a harness: kernel, grid, block, shared
// memory, scalar bytes and buffer extents (not addresses).
std::string shape_key(const LaunchLine& l);
// The "key" of a recorded line; empty when the line has none.
std::string shape_key_of_line(const std::string& line);
// "k_<16 hex digits of FNV-1a of the mangled name>.jsonl"
std::string kernel_file_name(const std::string& mangled);
std::string line_json(const LaunchLine& l);
// Sets params[i]'s min and max from its contents before the launch, where
// the kernel's signature gives it an arithmetic element type.
void note_value_range(LaunchLine& l, std::size_t i, const std::vector<unsigned char>& contents);

}  // namespace kernelblaster::recorder
