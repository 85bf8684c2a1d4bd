// An exclusive flock(2) on a lock file, held for the object's lifetime. The
// kernel drops it when the holder dies, so a killed build never leaves the
// cache or the lockfile locked.
#pragma once

#include <string>

namespace kernelblaster::cache {

class FileLock {
 public:
  // Blocks until held; throws std::runtime_error if the file cannot be
  // opened (its directory is created first).
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace kernelblaster::cache
