// Recording a program's calls of a host launcher (issue 13: capture). The
// shim `kernelblaster capture shim` writes for a source defines the
// launcher, records the call with kernelblaster::capture::Call, and calls
// the original (renamed). Nothing is recorded unless KERNELBLASTER_CAPTURE_FILE
// names the file to append to (`kernelblaster capture -- <command>`,
// `kernelblaster_generated/record` and the project's tests under ctest set
// it; capture_file() below), and then the first call of each distinct shape (its scalars and buffer
// extents) is recorded as one JSON line, and later calls of a recorded shape
// cost one extent query per buffer. Where nothing is recorded, a call costs
// a test of one flag: no allocation, no query, no synchronization. A line is {"source", "launcher", "args"}
// as harness/capture.h reads them (`kernelblaster capture` gathers the lines
// into one capture file per launcher): each buffer's extent in elements (from the start of the pointer to the end
// of its allocation), whether the call changed it (a device-side checksum
// before and after), integer buffers' min and max; each scalar's value.
//
// Header-only, compiled by nvcc into the shim. Run on an H100
// (bench/results/oneline-cmake-h100-2026-11-25); compiled in the CPU tests.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace kernelblaster::capture {

namespace detail {

// Order-sensitive checksum of `words` 32-bit words (a trailing partial word
// is folded in by the host).
// (A template, so that the header may be included by several files.)
template <int = 0>
__global__ void checksum_kernel(const std::uint32_t* p, std::size_t words, unsigned long long* out) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += (static_cast<unsigned long long>(p[i]) + 0x9e3779b97f4a7c15ull) * (2 * i + 1);
  if (local) atomicAdd(out, local);
}

// Integer buffers' range, as long long.
template <class T>
__global__ void range_kernel(const T* p, std::size_t n, long long* lo, long long* hi) {
  long long a = LLONG_MAX, b = LLONG_MIN;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    long long v = static_cast<long long>(p[i]);
    a = v < a ? v : a;
    b = v > b ? v : b;
  }
  atomicMin(lo, a);
  atomicMax(hi, b);
}

// The file a source's recorded calls are appended to, or "" for none:
// KERNELBLASTER_CAPTURE_FILE (the same for every source of the program;
// each line names its source), else, for a shim compiled with a name (the
// CMake module's: "<target>/<stem>"), <KERNELBLASTER_CAPTURE_DIR>/<name>.calls.jsonl.
// Neither set: nothing is recorded, so a program built with the shim runs
// at its own speed, and no path of the build tree is compiled into it.
// "off" (or "0") records nothing.
struct CaptureEnvironment {
  const char* file = nullptr;  // KERNELBLASTER_CAPTURE_FILE, unless empty
  const char* dir = nullptr;   // KERNELBLASTER_CAPTURE_DIR, unless empty
  bool off = false;            // the file is "off" or "0"
};

// Read once per program.
inline const CaptureEnvironment& capture_environment() {
  static const CaptureEnvironment env = [] {
    CaptureEnvironment e;
    const char* f = std::getenv("KERNELBLASTER_CAPTURE_FILE");
    const char* d = std::getenv("KERNELBLASTER_CAPTURE_DIR");
    e.file = f && *f ? f : nullptr;
    e.dir = d && *d ? d : nullptr;
    e.off = e.file && (std::string(e.file) == "off" || std::string(e.file) == "0");
    return e;
  }();
  return env;
}

inline std::string capture_file(const char* name) {
  const CaptureEnvironment& env = capture_environment();
  if (env.file) return env.off ? "" : env.file;
  if (env.dir && name && *name) return std::string(env.dir) + "/" + name + ".calls.jsonl";
  return "";
}

// Whether capture_file(name) names a file, without making it: what a call
// tests when nothing records.
inline bool capturing(const char* name) {
  const CaptureEnvironment& env = capture_environment();
  return env.file ? !env.off : env.dir && name && *name;
}

// Recorded lines stop being appended once the file holds this much: a
// program run thousands of times (or a test suite run in a loop) cannot
// fill the disk.
constexpr long long kMaxCaptureFileBytes = 16ll << 20;

// Bytes from `p` to the end of its device allocation; 0 when `p` is not
// device memory the driver knows (then the buffer is left out).
inline std::size_t bytes_to_end(const void* p) {
  using RangeFn = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
  static RangeFn range = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<RangeFn>(fn);
  }();
  if (!range || !p) return 0;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  CUdeviceptr at = reinterpret_cast<CUdeviceptr>(p);
  if (range(&base, &size, at) != CUDA_SUCCESS) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<std::size_t>(base + size - at);
}

inline unsigned long long device_checksum(const void* p, std::size_t bytes) {
  unsigned long long* sum = nullptr;
  if (cudaMalloc(&sum, sizeof(*sum)) != cudaSuccess) return 0;
  cudaMemset(sum, 0, sizeof(*sum));
  std::size_t words = bytes / 4;
  if (words) checksum_kernel<<<256, 256>>>(static_cast<const std::uint32_t*>(p), words, sum);
  unsigned long long host = 0;
  cudaMemcpy(&host, sum, sizeof(host), cudaMemcpyDeviceToHost);
  cudaFree(sum);
  for (std::size_t i = words * 4; i < bytes; ++i) {  // the tail, through the host
    unsigned char b = 0;
    cudaMemcpy(&b, static_cast<const unsigned char*>(p) + i, 1, cudaMemcpyDeviceToHost);
    host = host * 131 + b;
  }
  return host;
}

template <class T>
inline bool device_range(const T* p, std::size_t n, long long* lo, long long* hi) {
  long long* d = nullptr;
  if (cudaMalloc(&d, 2 * sizeof(long long)) != cudaSuccess) return false;
  long long init[2] = {LLONG_MAX, LLONG_MIN};
  cudaMemcpy(d, init, sizeof(init), cudaMemcpyHostToDevice);
  range_kernel<<<256, 256>>>(p, n, d, d + 1);
  cudaMemcpy(init, d, sizeof(init), cudaMemcpyDeviceToHost);
  cudaFree(d);
  *lo = init[0];
  *hi = init[1];
  return cudaGetLastError() == cudaSuccess && init[0] <= init[1];
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace detail

class Call {
 public:
  // `launcher` is the launcher as capture JSON (harness/capture.h "launcher");
  // `name`, the shim's file name under KERNELBLASTER_CAPTURE_DIR (null: none).
  Call(const char* source, const char* launcher, const char* name = nullptr)
      : m_name(name), m_on(detail::capturing(name)), m_source(source), m_launcher(launcher) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Before the call, in parameter order.
  template <class T>
  void buffer(const T* p, std::size_t element_bytes) {
    if (!m_on) return;
    Arg a;
    a.kind = Arg::buffer;
    a.pointer = p;
    a.bytes = detail::bytes_to_end(p);
    a.element_bytes = element_bytes;
    a.integer = std::is_integral<T>::value;
    a.is_unsigned = std::is_unsigned<T>::value;
    m_args.push_back(a);
  }
  void value(double v) { push_value(v); }
  void value(long long v) { push_value(static_cast<double>(v), std::to_string(v)); }
  void none() {
    if (!m_on) return;
    Arg a;
    a.kind = Arg::none;
    m_args.push_back(a);
  }

  // Before the call, after every argument: whether this call is recorded
  // (the first of its shape); if so, checksums and ranges are taken now.
  void begin() {
    if (!m_on) return;
    std::string shape = std::string(m_source) + "|" + m_launcher;
    for (const Arg& a : m_args) shape += "|" + (a.kind == Arg::buffer ? std::to_string(a.bytes) : a.text);
    static std::mutex mu;
    static std::set<std::string> seen;
    {
      std::lock_guard<std::mutex> lock(mu);
      m_record = seen.insert(shape).second;
    }
    if (!m_record) return;
    cudaDeviceSynchronize();
    for (Arg& a : m_args)
      if (a.kind == Arg::buffer && a.bytes > 0) {
        a.before = detail::device_checksum(a.pointer, a.bytes);
        if (a.integer) take_range(a);
      }
  }

  // After the call: which buffers changed; one line appended.
  void finish() {
    if (!m_on || !m_record) return;
    cudaDeviceSynchronize();
    std::string line = "{\"source\": " + detail::json_string(m_source) + ", \"launcher\": " + m_launcher + ", \"args\": [";
    for (std::size_t i = 0; i < m_args.size(); ++i) {
      const Arg& a = m_args[i];
      line += i ? ", " : "";
      if (a.kind == Arg::buffer) {
        if (a.bytes == 0 || a.element_bytes == 0) {
          line += "{}";
          continue;
        }
        bool written = detail::device_checksum(a.pointer, a.bytes) != a.before;
        line += "{\"elements\": " + std::to_string(a.bytes / a.element_bytes) +
                ", \"written\": " + (written ? "true" : "false");
        if (a.has_range) line += ", \"min\": " + std::to_string(a.lo) + ", \"max\": " + std::to_string(a.hi);
        line += "}";
      } else if (a.kind == Arg::scalar) {
        line += "{\"value\": " + detail::json_string(a.text) + "}";
      } else {
        line += "{}";
      }
    }
    line += "]}\n";
    const std::string file = detail::capture_file(m_name);
    int fd = file.empty() ? -1 : ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ::flock(fd, LOCK_EX);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size + static_cast<long long>(line.size()) <= detail::kMaxCaptureFileBytes) {
      ssize_t ignored = ::write(fd, line.data(), line.size());
      (void)ignored;
    }
    ::flock(fd, LOCK_UN);
    ::close(fd);
  }

 private:
  struct Arg {
    enum Kind { buffer, scalar, none } kind = none;
    const void* pointer = nullptr;
    std::size_t bytes = 0, element_bytes = 0;
    bool integer = false, is_unsigned = false, has_range = false;
    unsigned long long before = 0;
    long long lo = 0, hi = 0;
    std::string text;
  };

  void push_value(double v, std::string text = "") {
    if (!m_on) return;
    Arg a;
    a.kind = Arg::scalar;
    if (text.empty()) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      text = buf;
    }
    a.text = text;
    m_args.push_back(a);
  }

  void take_range(Arg& a) {
    std::size_t n = a.bytes / a.element_bytes;
    // Read as the type the launcher declares: an unsigned char buffer's
    // range is 0..255, not -128..127.
    const bool u = a.is_unsigned;
    switch (a.element_bytes) {
      case 1:
        a.has_range = u ? detail::device_range(static_cast<const unsigned char*>(a.pointer), n, &a.lo, &a.hi)
                        : detail::device_range(static_cast<const signed char*>(a.pointer), n, &a.lo, &a.hi);
        break;
      case 2:
        a.has_range = u ? detail::device_range(static_cast<const unsigned short*>(a.pointer), n, &a.lo, &a.hi)
                        : detail::device_range(static_cast<const short*>(a.pointer), n, &a.lo, &a.hi);
        break;
      case 4:
        a.has_range = u ? detail::device_range(static_cast<const unsigned*>(a.pointer), n, &a.lo, &a.hi)
                        : detail::device_range(static_cast<const int*>(a.pointer), n, &a.lo, &a.hi);
        break;
      case 8: a.has_range = detail::device_range(static_cast<const long long*>(a.pointer), n, &a.lo, &a.hi); break;
      default: break;
    }
  }

  const char* m_name;
  bool m_on;
  bool m_record = false;
  const char* m_source;    // the shim's string literals: nothing is copied unless a call is recorded
  const char* m_launcher;
  std::vector<Arg> m_args;
};

}  // namespace kernelblaster::capture
