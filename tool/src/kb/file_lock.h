// An exclusive advisory lock (flock) on a lock file, held for the lifetime of
// the object. The lock file sits beside the file it guards and is never
// deleted: removing it would let two writers lock two different inodes.
#pragma once

#include <string>

namespace kernelblaster::kb {

class FileLock {
 public:
  // Creates the lock file if needed and blocks until the lock is ours.
  // Throws KbError naming the lock file when it cannot be opened or locked.
  explicit FileLock(const std::string& lock_path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace kernelblaster::kb
