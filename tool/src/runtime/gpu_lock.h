// An inter-process lock per GPU, so concurrent builds never time kernels on
// a busy GPU. flock(2): released by the kernel when the holder dies.
#pragma once

#include <string>

namespace kernelblaster {

class GpuLock {
 public:
  GpuLock() = default;
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  // Blocks until the lock on `dir/gpu-<key>.lock` is held or `timeout_s`
  // passes; returns false with the reason on timeout or error.
  bool acquire(const std::string& dir, const std::string& key, double timeout_s, std::string* why_not);
  void release();
  bool held() const { return m_fd >= 0; }

 private:
  int m_fd = -1;
};

}  // namespace kernelblaster
