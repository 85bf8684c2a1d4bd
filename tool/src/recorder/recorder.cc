// The kernel recorder: a library the CUDA driver loads into a user's program
// (CUDA_INJECTION64_PATH), which records the program's kernel launches for
// harness synthesis (issue 27: capture kernels, not host functions). The
// program is compiled and run as it is.
//
// For each launch of a kernel shape not recorded before (kernel, grid, block,
// dynamic shared memory, scalar bytes, buffer extents), it waits for the
// device, copies every buffer argument (a pointer the driver resolves to an
// allocation) before and after the launch (for the first few shapes of each
// kernel in a process; later shapes take what those showed), and appends one JSON line to the
// kernel's own file under KERNELBLASTER_KERNEL_CAPTURE_DIR: the parameter
// layout (the driver's parameter info), each parameter's bytes, each
// buffer's extent from the pointer to the allocation's end, whether the
// launch changed it, and the value range of integer buffers. Launches inside
// a stream capture, with packed "extra" arguments, or that fail are not
// recorded. Nothing here may take the user's program down: every failure is
// one line on stderr and recording stops.
#include <cuda.h>
#include <cupti.h>
#include <cxxabi.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "recorder/launch_line.h"

namespace kernelblaster::recorder {
namespace {

constexpr std::size_t kMaxShapesPerKernel = 24;
// Shapes of one kernel whose buffers are copied, per process: a later shape
// takes which buffers are written and their value ranges from the last
// copied one (a harness uses a few sizes; the copies are what recording
// costs: a device synchronization and every buffer twice).
constexpr int kCopiedShapesPerKernel = 3;
constexpr std::size_t kMaxSnapshotBytes = std::size_t(1) << 30;  // per launch, all buffers together

std::string g_dir;
std::mutex g_mutex;
std::map<std::string, std::set<std::string>> g_seen;  // kernel file -> shape keys recorded (any process)
bool g_stopped = false;

// What the copied shapes of a kernel showed, per parameter.
struct ParamFacts {
  bool written_known = false, written = false;
  std::optional<double> min, max;
};
struct KernelFacts {
  int copied = 0;
  std::vector<ParamFacts> params;
};
std::map<std::string, KernelFacts> g_facts;  // by mangled name, this process

struct Pending {
  bool active = false;
  bool copied = false;  // the buffers were copied; else the kernel's facts are used
  LaunchLine line;
  std::vector<std::vector<unsigned char>> before;  // per buffer parameter, empty when not copied
};
thread_local Pending t_pending;
thread_local bool t_inside = false;

void stop(const std::string& why) {
  if (!g_stopped) std::fprintf(stderr, "kernelblaster recorder: %s; recording stops\n", why.c_str());
  g_stopped = true;
}

std::string demangled(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(mangled);
}

// The shape keys already in a kernel's file: recordings of earlier runs.
std::set<std::string>& seen_for(const std::string& file) {
  auto it = g_seen.find(file);
  if (it != g_seen.end()) return it->second;
  std::set<std::string>& keys = g_seen[file];
  if (FILE* f = std::fopen(file.c_str(), "r")) {
    char buf[1 << 16];
    while (std::fgets(buf, sizeof buf, f)) {
      std::string key = shape_key_of_line(buf);
      if (!key.empty()) keys.insert(key);
    }
    std::fclose(f);
  }
  return keys;
}

void append_line(const std::string& file, const std::string& text) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return stop("cannot write " + file);
  ::flock(fd, LOCK_EX);
  std::string all = text + "\n";
  const char* p = all.data();
  std::size_t left = all.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  // The build step depends on this file: a new shape makes the next build look.
  std::string stamp = g_dir + "/recorded.stamp";
  int s = ::open(stamp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (s >= 0) {
    (void)::write(s, "1\n", 2);
    ::close(s);
  }
}

struct Launch {
  CUfunction f = nullptr;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned shared = 0;
  CUstream stream = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
};

bool read_launch(CUpti_CallbackId cbid, const void* p, Launch& l) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* a = static_cast<const cuLaunchKernel_params*>(p);
      l.f = a->f;
      l.grid[0] = a->gridDimX, l.grid[1] = a->gridDimY, l.grid[2] = a->gridDimZ;
      l.block[0] = a->blockDimX, l.block[1] = a->blockDimY, l.block[2] = a->blockDimZ;
      l.shared = a->sharedMemBytes;
      l.stream = a->hStream;
      l.params = a->kernelParams;
      l.extra = a->extra;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* a = static_cast<const cuLaunchKernelEx_params*>(p);
      if (!a->config) return false;
      l.f = a->f;
      l.grid[0] = a->config->gridDimX, l.grid[1] = a->config->gridDimY, l.grid[2] = a->config->gridDimZ;
      l.block[0] = a->config->blockDimX, l.block[1] = a->config->blockDimY, l.block[2] = a->config->blockDimZ;
      l.shared = a->config->sharedMemBytes;
      l.stream = a->config->hStream;
      l.params = a->kernelParams;
      l.extra = a->extra;
      return true;
    }
    default:
      return false;
  }
}

// The parameters of the launch as the driver lays them out, buffers resolved.
bool describe(const Launch& l, const char* symbol, LaunchLine& line) {
  const char* name = nullptr;
  if (cuFuncGetName(&name, l.f) != CUDA_SUCCESS || !name) name = symbol;
  if (!name) return false;
  line.kernel = name;
  line.demangled = demangled(name);
  for (int i = 0; i < 3; ++i) line.grid[i] = l.grid[i], line.block[i] = l.block[i];
  line.shared = l.shared;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    // A runtime launch may pass the library's CUkernel as the function.
    if (cuFuncGetParamInfo(l.f, i, &offset, &size) != CUDA_SUCCESS &&
        cuKernelGetParamInfo(reinterpret_cast<CUkernel>(l.f), i, &offset, &size) != CUDA_SUCCESS)
      break;
    ParamBytes pb;
    pb.offset = offset;
    pb.bytes.assign(static_cast<const unsigned char*>(l.params[i]), static_cast<const unsigned char*>(l.params[i]) + size);
    if (size == sizeof(CUdeviceptr)) {
      CUdeviceptr v = 0, start = 0;
      std::size_t range = 0;
      std::memcpy(&v, l.params[i], sizeof v);
      unsigned memory = 0;
      if (v != 0 && cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, v) == CUDA_SUCCESS &&
          cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, v) == CUDA_SUCCESS &&
          cuPointerGetAttribute(&memory, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, v) == CUDA_SUCCESS &&
          (memory == CU_MEMORYTYPE_DEVICE || memory == CU_MEMORYTYPE_UNIFIED) && v >= start && v < start + range) {
        pb.buffer = true;
        pb.address = v;
        pb.extent = start + range - v;
        pb.alloc_offset = v - start;
      }
    }
    line.params.push_back(std::move(pb));
  }
  return true;
}

void before_launch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  Launch l;
  if (!read_launch(cbid, cb->functionParams, l) || !l.f) return;
  if (!l.params) return;  // arguments packed through "extra": their layout is the caller's
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(l.stream, &capturing) != CUDA_SUCCESS || capturing != CU_STREAM_CAPTURE_STATUS_NONE) return;
  LaunchLine line;
  if (!describe(l, cb->symbolName, line)) return;
  const std::string file = g_dir + "/" + kernel_file_name(line.kernel);
  const std::string key = shape_key(line);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::set<std::string>& seen = seen_for(file);
    if (seen.size() >= kMaxShapesPerKernel || !seen.insert(key).second) return;
  }
  Pending p;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    p.copied = g_facts[line.kernel].copied < kCopiedShapesPerKernel;
  }
  p.line = std::move(line);
  if (!p.copied) {
    p.active = true;
    t_pending = std::move(p);
    return;
  }
  // The buffers as the launch finds them.
  if (cuCtxSynchronize() != CUDA_SUCCESS) return stop("the program's device work failed before a launch");
  std::size_t copied = 0;
  for (ParamBytes& pb : p.line.params) {
    p.before.emplace_back();
    if (!pb.buffer || copied + pb.extent > kMaxSnapshotBytes) continue;
    p.before.back().resize(pb.extent);
    if (cuMemcpyDtoH(p.before.back().data(), pb.address, pb.extent) != CUDA_SUCCESS) {
      p.before.back().clear();
      continue;
    }
    copied += pb.extent;
  }
  p.active = true;
  t_pending = std::move(p);
}

void after_launch(const CUpti_CallbackData* cb) {
  if (!t_pending.active) return;
  Pending p = std::move(t_pending);
  t_pending = Pending{};
  if (*static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS) return;
  if (!p.copied) {  // as the kernel's copied shapes showed
    std::lock_guard<std::mutex> lock(g_mutex);
    const KernelFacts& facts = g_facts[p.line.kernel];
    for (std::size_t i = 0; i < p.line.params.size() && i < facts.params.size(); ++i) {
      ParamBytes& pb = p.line.params[i];
      if (!pb.buffer) continue;
      pb.written_known = facts.params[i].written_known;
      pb.written = facts.params[i].written;
      pb.min = facts.params[i].min;
      pb.max = facts.params[i].max;
    }
    append_line(g_dir + "/" + kernel_file_name(p.line.kernel), line_json(p.line));
    return;
  }
  if (cuCtxSynchronize() != CUDA_SUCCESS) return stop("a recorded launch failed on the device");
  std::vector<unsigned char> after;
  for (std::size_t i = 0; i < p.line.params.size(); ++i) {
    ParamBytes& pb = p.line.params[i];
    if (!pb.buffer) continue;
    if (p.before[i].empty()) {
      pb.written_known = false;
      continue;
    }
    after.resize(pb.extent);
    if (cuMemcpyDtoH(after.data(), pb.address, pb.extent) != CUDA_SUCCESS) {
      pb.written_known = false;
      continue;
    }
    pb.written_known = true;
    pb.written = std::memcmp(after.data(), p.before[i].data(), pb.extent) != 0;
    note_value_range(p.line, i, p.before[i]);
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    KernelFacts& facts = g_facts[p.line.kernel];
    ++facts.copied;
    facts.params.assign(p.line.params.size(), ParamFacts{});
    for (std::size_t i = 0; i < p.line.params.size(); ++i)
      facts.params[i] = {p.line.params[i].written_known, p.line.params[i].written, p.line.params[i].min,
                         p.line.params[i].max};
  }
  append_line(g_dir + "/" + kernel_file_name(p.line.kernel), line_json(p.line));
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || g_stopped || t_inside) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  t_inside = true;  // the recorder's own driver calls are not the program's
  try {
    if (cb->callbackSite == CUPTI_API_ENTER) before_launch(cbid, cb);
    else after_launch(cb);
  } catch (const std::exception& x) {
    stop(x.what());
  }
  t_inside = false;
}

}  // namespace
}  // namespace kernelblaster::recorder

// The driver calls this once, when it initializes, in every process that
// has CUDA_INJECTION64_PATH naming this library.
extern "C" int InitializeInjection(void) {
  using namespace kernelblaster::recorder;
  const char* dir = std::getenv("KERNELBLASTER_KERNEL_CAPTURE_DIR");
  if (!dir || !*dir) return 1;
  g_dir = dir;
  std::error_code ec;
  std::filesystem::create_directories(g_dir, ec);
  if (ec) {
    stop("cannot create " + g_dir + ": " + ec.message());
    return 1;
  }
  // CUPTI takes one subscriber per process: named, so that a program of the
  // user's that subscribes later is told who holds it (CAPTURE_TESTS keeps
  // such tests out of recording), and a tool that came first is named here.
  CUpti_SubscriberHandle subscriber;
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams params = {};
  params.structSize = sizeof params;
  params.subscriberName = "KernelBlaster kernel recorder";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN;
  if (cuptiSubscribe_v2(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr, &params) !=
      CUPTI_SUCCESS) {
    stop(std::string("CUPTI is in use in this process") + (holder[0] ? std::string(" by ") + holder : std::string()));
    return 1;
  }
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  return 1;
}
