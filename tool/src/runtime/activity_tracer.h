// CUPTI activity collection for device-wide timing: every kernel, memcpy and
// memset of this process with device timestamps, and every runtime/driver
// API call with its host time and thread. Needs no counter permission.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/activity_windows.h"
#include "runtime/kernel_launch.h"

namespace kernelblaster {

class ActivityTracer {
 public:
  // Starts collection; returns false (with the reason) when CUPTI refuses,
  // in which case timing falls back to CUDA events.
  bool start(std::string* why_not);
  void stop();
  bool active() const { return m_active; }
  // Host time on the clock of the activity records.
  std::uint64_t now() const;
  // The calling thread's id as CUPTI writes it in API records.
  static std::uint32_t current_thread();
  // Flushes CUPTI's buffers (the caller synchronizes the device first) and
  // hands over everything recorded since the last call.
  void drain(std::vector<GpuActivity>* gpu, std::unordered_map<std::uint32_t, ApiCall>* api);
  // drain(), then everything it handed over attributed to `windows` (the
  // harness runs on the calling thread); discard() drops it unread.
  Attribution attribute(const std::vector<TimedWindow>& windows);
  void discard();
  // Launch facts of the kernels recorded since the last call, only while
  // set_keep_launches(true) (the profile pass asks; timing never pays).
  void set_keep_launches(bool keep);
  std::vector<KernelLaunchRecord> drain_launches();

 private:
  bool m_active = false;
};

}  // namespace kernelblaster
