#include "runtime/activity_tracer.h"

#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

namespace kernelblaster {
namespace {

// CUPTI delivers buffers through C callbacks, possibly on its own thread.
std::mutex g_mutex;
std::vector<GpuActivity> g_gpu;
std::unordered_map<std::uint32_t, ApiCall> g_api;
std::uint64_t g_dropped = 0;
bool g_keep_launches = false;
std::vector<KernelLaunchRecord> g_launches;

constexpr std::size_t kBufferBytes = 8u << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
        g_gpu.push_back({k->start, k->end, k->correlationId, k->name ? k->name : "?"});
        if (g_keep_launches) {
          KernelLaunchRecord l;
          l.correlation_id = k->correlationId;
          l.name = k->name ? k->name : "";
          l.start = k->start;
          l.end = k->end;
          l.registers_per_thread = k->registersPerThread;
          l.static_smem_bytes = k->staticSharedMemory;
          l.dynamic_smem_bytes = k->dynamicSharedMemory;
          l.local_mem_per_thread_bytes = k->localMemoryPerThread;
          l.grid_x = k->gridX, l.grid_y = k->gridY, l.grid_z = k->gridZ;
          l.block_x = k->blockX, l.block_y = k->blockY, l.block_z = k->blockZ;
          g_launches.push_back(std::move(l));
        }
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
        g_gpu.push_back({m->start, m->end, m->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(record);
        g_gpu.push_back({m->start, m->end, m->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        auto* a = reinterpret_cast<CUpti_ActivityAPI*>(record);
        g_api[a->correlationId] = {a->start, a->end, a->threadId};
        break;
      }
      default:
        break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
  std::free(buffer);
}

std::string cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

}  // namespace

bool ActivityTracer::start(std::string* why_not) {
  if (m_active) return true;
  CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (r == CUPTI_SUCCESS) r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                      CUPTI_ACTIVITY_KIND_DRIVER};
  for (CUpti_ActivityKind k : kinds) {
    if (r != CUPTI_SUCCESS) break;
    r = cuptiActivityEnable(k);
  }
  if (r != CUPTI_SUCCESS) {
    if (why_not) *why_not = "CUPTI activity tracing unavailable: " + cupti_error(r);
    return false;
  }
  m_active = true;
  return true;
}

void ActivityTracer::stop() {
  if (!m_active) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
  m_active = false;
}

std::uint64_t ActivityTracer::now() const {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

std::uint32_t ActivityTracer::current_thread() { return static_cast<std::uint32_t>(::syscall(SYS_gettid)); }

void ActivityTracer::drain(std::vector<GpuActivity>* gpu, std::unordered_map<std::uint32_t, ApiCall>* api) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  gpu->swap(g_gpu);
  api->swap(g_api);
  g_gpu.clear();
  g_api.clear();
}

Attribution ActivityTracer::attribute(const std::vector<TimedWindow>& windows) {
  std::vector<GpuActivity> gpu;
  std::unordered_map<std::uint32_t, ApiCall> api;
  drain(&gpu, &api);
  return attribute_activity(windows, gpu, api, current_thread());
}

void ActivityTracer::discard() {
  std::vector<GpuActivity> gpu;
  std::unordered_map<std::uint32_t, ApiCall> api;
  drain(&gpu, &api);
}

void ActivityTracer::set_keep_launches(bool keep) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_keep_launches = keep;
}

std::vector<KernelLaunchRecord> ActivityTracer::drain_launches() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<KernelLaunchRecord> out;
  out.swap(g_launches);
  return out;
}

}  // namespace kernelblaster
