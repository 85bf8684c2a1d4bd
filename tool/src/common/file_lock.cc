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

FileLock::FileLock(const std::string& path, const std::string& note,
                   const std::function<void(const std::string& holder)>& waiting) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw FileLockError(path, std::string("cannot open the lock file: ") + std::strerror(errno));
  int r;
  while ((r = ::flock(m_fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (r != 0 && errno == EWOULDBLOCK) {
    std::string holder(512, '\0');
    ssize_t n = ::pread(m_fd, holder.data(), holder.size(), 0);
    holder.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
    if (waiting) waiting(holder.empty() ? "another process" : holder);
    while ((r = ::flock(m_fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
  }
  if (r != 0) {
    int err = errno;
    ::close(m_fd);
    throw FileLockError(path, std::string("cannot lock: ") + std::strerror(err));
  }
  if (::ftruncate(m_fd, 0) == 0) {
    ssize_t ignored = ::pwrite(m_fd, note.data(), note.size(), 0);  // a note for whoever waits: best effort
    (void)ignored;
  }
}

FileLock::~FileLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the last descriptor releases the lock
}

}  // namespace kernelblaster
