#include "eval/dumps.h"

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

LoadedDump load_dump(const HarnessReport& r, const std::string& dir, const OutputDump& d) {
  LoadedDump out;
  const std::string& dtype = d.dtype.empty() ? buffer_decl(r, d.name).dtype : d.dtype;
  if (!element_type_from_name(dtype, &out.type)) throw std::runtime_error("unknown dtype " + dtype);
  out.bytes = read_file(dir + "/" + d.file);
  out.poison = d.poison_byte;
  if (out.bytes.size() != static_cast<std::size_t>(d.count) * element_bytes(out.type))
    throw std::runtime_error("dump " + d.file + " has " + std::to_string(out.bytes.size()) + " bytes, expected " +
                             std::to_string(d.count * static_cast<std::int64_t>(element_bytes(out.type))));
  return out;
}

}  // namespace kernelblaster
