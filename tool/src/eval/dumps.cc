#include "eval/dumps.h"

#include <fstream>
#include <stdexcept>

#include "common/file_util.h"

namespace kernelblaster {

OutputView LoadedDump::view() const {
  return {type, reinterpret_cast<const unsigned char*>(bytes.data()),
          static_cast<std::int64_t>(bytes.size() / element_bytes(type))};
}

const BufferDecl& buffer_decl(const HarnessReport& r, const std::string& name) {
  for (const BufferDecl& b : r.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("report has no buffer '" + name + "'");
}

const OutputDump* find_dump(const std::vector<OutputDump>& dumps, const std::string& name) {
  for (const OutputDump& d : dumps)
    if (d.name == name) return &d;
  return nullptr;
}

namespace {

ElementType dump_type(const HarnessReport& r, const OutputDump& d) {
  const std::string& dtype = d.dtype.empty() ? buffer_decl(r, d.name).dtype : d.dtype;
  ElementType t;
  if (!element_type_from_name(dtype, &t)) throw std::runtime_error("unknown dtype " + dtype);
  return t;
}

}  // namespace

LoadedDump load_dump_sample(const HarnessReport& r, const std::string& dir, const OutputDump& d,
                            std::int64_t block_elements, int blocks) {
  if (d.count <= block_elements * blocks) return load_dump(r, dir, d);
  LoadedDump out;
  out.type = dump_type(r, d);
  out.poison = d.poison_byte;
  const std::int64_t eb = static_cast<std::int64_t>(element_bytes(out.type));
  std::ifstream in(dir + "/" + d.file, std::ios::binary);
  in.seekg(0, std::ios::end);
  if (!in || static_cast<std::int64_t>(in.tellg()) != d.count * eb)
    throw std::runtime_error("dump " + d.file + " is missing or has the wrong size");
  out.bytes.resize(static_cast<std::size_t>(block_elements * blocks * eb));
  const std::int64_t step = (d.count - block_elements) / (blocks - 1 > 0 ? blocks - 1 : 1);
  for (int b = 0; b < blocks; ++b) {
    in.seekg(b * step * eb);
    in.read(out.bytes.data() + b * block_elements * eb, block_elements * eb);
    if (!in) throw std::runtime_error("dump " + d.file + ": short read");
  }
  return out;
}

LoadedDump load_dump(const HarnessReport& r, const std::string& dir, const OutputDump& d) {
  LoadedDump out;
  out.type = dump_type(r, d);
  out.bytes = read_file(dir + "/" + d.file);
  out.poison = d.poison_byte;
  if (out.bytes.size() != static_cast<std::size_t>(d.count) * element_bytes(out.type))
    throw std::runtime_error("dump " + d.file + " has " + std::to_string(out.bytes.size()) + " bytes, expected " +
                             std::to_string(d.count * static_cast<std::int64_t>(element_bytes(out.type))));
  return out;
}

}  // namespace kernelblaster
