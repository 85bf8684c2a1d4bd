#include "kb/file_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "kb/knowledge_base.h"

namespace kernelblaster::kb {

FileLock::FileLock(const std::string& lock_path) {
  m_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw KbError(lock_path, "", std::string("cannot open the lock file: ") + std::strerror(errno));
  // flock locks belong to the open file description, so two threads of one
  // process, each with its own FileLock, exclude each other as processes do.
  while (::flock(m_fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(m_fd);
    throw KbError(lock_path, "", std::string("cannot lock: ") + std::strerror(err));
  }
}

FileLock::~FileLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the last descriptor releases the lock
}

}  // namespace kernelblaster::kb
