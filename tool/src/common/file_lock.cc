#include "common/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kernelblaster {

FileLock::FileLock(const std::string& path) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);  // open() reports real problems
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw FileLockError(path, std::string("cannot open the lock file: ") + std::strerror(errno));
  // flock locks belong to the open file description, so two threads of one
  // process, each with its own FileLock, exclude each other as processes do.
  while (::flock(m_fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(m_fd);
    throw FileLockError(path, std::string("cannot lock: ") + std::strerror(err));
  }
}

FileLock::~FileLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the last descriptor releases the lock
}

}  // namespace kernelblaster
