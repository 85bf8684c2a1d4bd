// Output dumps as a harness process left them: read back, checked against
// the report that vouches for them, and viewed for the comparison math.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/protocol.h"
#include "runtime/compare.h"

namespace kernelblaster {

struct LoadedDump {
  ElementType type = ElementType::f32;
  std::string bytes;                   // a sample's bytes (load_dump_sample)
  std::shared_ptr<const void> mapped;  // a whole dump, mapped read-only (load_dump)
  std::size_t mapped_size = 0;
  std::uint8_t poison = 0xFF;
  const unsigned char* data() const;
  std::size_t size() const { return mapped ? mapped_size : bytes.size(); }
  OutputView view() const;
};

// The report's declaration of buffer `name`; throws std::runtime_error when
// there is none.
const BufferDecl& buffer_decl(const HarnessReport& report, const std::string& name);
// The dump of `name` in `dumps`, or null.
const OutputDump* find_dump(const std::vector<OutputDump>& dumps, const std::string& name);
// Reads `dump` from `dir`; its type is its own dtype or else its buffer's.
// Throws std::runtime_error for an unknown type or a file of the wrong size.
LoadedDump load_dump(const HarnessReport& report, const std::string& dir, const OutputDump& dump);
// The same dump, but only `blocks` runs of `block_elements` contiguous
// elements at evenly spaced offsets (the whole dump when it is smaller):
// a quick look for "is this the same answer as that one?" that reads a few
// hundred KB instead of the whole file. Two samples taken with the same
// arguments from dumps of the same count cover the same elements.
LoadedDump load_dump_sample(const HarnessReport& report, const std::string& dir, const OutputDump& dump,
                            std::int64_t block_elements = 16384, int blocks = 4);

}  // namespace kernelblaster
