#include "runtime/profiler_warmup.h"

#include <chrono>

namespace kernelblaster {

ProfilerWarmup::ProfilerWarmup(const ProfileRequest& req, int device) {
  if (req.size < 0 || req.metrics.empty()) return;
  m_profiler = std::make_unique<RangeProfiler>();
  m_done = std::async(std::launch::async, [this, req, device] {
    return m_profiler->setup(device, req.metrics, req.max_kernels, &m_why);
  });
}

ProfilerWarmup::~ProfilerWarmup() {
  if (m_done.valid()) m_done.wait();
}

RangeProfiler* ProfilerWarmup::wait(std::string* why_not, double* waited_s) {
  auto t = std::chrono::steady_clock::now();
  bool ok = m_done.valid() && m_done.get();
  if (waited_s) *waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  if (!m_profiler) {
    if (why_not) *why_not = "no counters requested";
    return nullptr;
  }
  if (!ok && why_not) *why_not = m_why;
  return ok ? m_profiler.get() : nullptr;
}

}  // namespace kernelblaster
