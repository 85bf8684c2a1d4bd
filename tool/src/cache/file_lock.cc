#include "cache/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace kernelblaster::cache {

FileLock::FileLock(const std::string& path) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw std::runtime_error("cannot open lock " + path + ": " + std::strerror(errno));
  while (::flock(m_fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(m_fd);
    throw std::runtime_error("cannot lock " + path + ": " + std::strerror(err));
  }
}

FileLock::~FileLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing releases the flock
}

}  // namespace kernelblaster::cache
