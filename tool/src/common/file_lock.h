// An exclusive flock(2) on a lock file, held for the object's lifetime. The
// kernel drops it when the holder dies, so a killed process never leaves a
// file locked. The lock file sits beside what it guards and is never
// deleted: removing it would let two writers lock two different inodes.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace kernelblaster {

class FileLockError : public std::runtime_error {
 public:
  FileLockError(std::string path, std::string reason)
      : std::runtime_error(path + ": " + reason), m_path(std::move(path)), m_reason(std::move(reason)) {}
  const std::string& path() const { return m_path; }
  const std::string& reason() const { return m_reason; }

 private:
  std::string m_path, m_reason;
};

class FileLock {
 public:
  // Creates the lock file (and its directory) if needed and blocks until the
  // lock is ours. Throws FileLockError when it cannot be opened or locked.
  explicit FileLock(const std::string& path);
  // The same, saying who holds it: while another does, `waiting` is called
  // once with the note that holder wrote, before blocking; once the lock is
  // ours, `note` (who we are: a pid, a source) replaces the file's content.
  FileLock(const std::string& path, const std::string& note, const std::function<void(const std::string& holder)>& waiting);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace kernelblaster
