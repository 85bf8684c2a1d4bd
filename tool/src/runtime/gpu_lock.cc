#include "runtime/gpu_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace kernelblaster {

GpuLock::~GpuLock() { release(); }

bool GpuLock::acquire(const std::string& dir, const std::string& key, double timeout_s, std::string* why_not) {
  ::mkdir(dir.c_str(), 0777);  // may already exist; open() reports real problems
  std::string path = dir + "/gpu-" + key + ".lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (why_not) *why_not = "cannot open GPU lock " + path + ": " + std::strerror(errno);
    return false;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      if (why_not) *why_not = "cannot lock " + path + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      if (why_not) *why_not = "GPU busy: " + path + " held by another process for over " +
                              std::to_string(static_cast<int>(timeout_s)) + " s";
      ::close(fd);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  m_fd = fd;
  return true;
}

void GpuLock::release() {
  if (m_fd >= 0) {
    ::flock(m_fd, LOCK_UN);
    ::close(m_fd);
    m_fd = -1;
  }
}

}  // namespace kernelblaster
