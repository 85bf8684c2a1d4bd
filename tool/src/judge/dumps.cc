#include "judge/dumps.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/file_util.h"

namespace kernelblaster {

const unsigned char* LoadedDump::data() const {
  return mapped ? static_cast<const unsigned char*>(mapped.get()) : reinterpret_cast<const unsigned char*>(bytes.data());
}

OutputView LoadedDump::view() const { return {type, data(), static_cast<std::int64_t>(size() / dtype_size(type))}; }

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
  if (!dtype_from_name(dtype, &t)) throw std::runtime_error("unknown dtype " + dtype);
  return t;
}

}  // namespace

LoadedDump load_dump_sample(const HarnessReport& r, const std::string& dir, const OutputDump& d,
                            std::int64_t block_elements, int blocks) {
  if (d.count <= block_elements * blocks) return load_dump(r, dir, d);
  LoadedDump out;
  out.type = dump_type(r, d);
  out.poison = d.poison_byte;
  const std::int64_t eb = static_cast<std::int64_t>(dtype_size(out.type));
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
  out.poison = d.poison_byte;
  // Mapped, not read: dumps run to hundreds of MB, fresh from the page cache,
  // and a copy into new memory cost as much as comparing them.
  const std::string path = dir + "/" + d.file;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("dump " + d.file + " is not a regular file");
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  const std::size_t expected = static_cast<std::size_t>(d.count) * dtype_size(out.type);
  if (size != expected) {
    ::close(fd);
    throw std::runtime_error("dump " + d.file + " has " + std::to_string(size) + " bytes, expected " +
                             std::to_string(expected));
  }
  if (size == 0) {
    ::close(fd);
    return out;
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    // No mapping (a file system without mmap): read it.
    out.bytes = read_file(path);
    if (out.bytes.size() != expected) throw std::runtime_error("dump " + d.file + " changed while it was read");
    return out;
  }
  out.mapped = std::shared_ptr<const void>(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  out.mapped_size = size;
  return out;
}

}  // namespace kernelblaster
