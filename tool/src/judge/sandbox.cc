#include "judge/sandbox.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "common/file_util.h"
#include "common/text.h"

namespace kernelblaster {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The machine's memory, or a container's own limit (cgroup v2, then v1)
// where that is lower.
std::uint64_t usable_memory_bytes() {
  std::uint64_t total = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                        static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    try {
      std::string v = read_file(path);
      char* end = nullptr;
      unsigned long long limit = std::strtoull(v.c_str(), &end, 10);
      if (end != v.c_str() && limit > 0 && limit < total) total = limit;
    } catch (const std::exception&) {
      // No such cgroup file (v1 or v2 only, or none): the machine's memory is the limit.
    }
  }
  return total;
}

}  // namespace

bool parse_memory_size(const std::string& text, std::uint64_t* bytes) {
  if (text == "off" || text == "0") {
    *bytes = 0;
    return true;
  }
  std::size_t i = 0;
  std::uint64_t n = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (n > (std::uint64_t{1} << 50)) return false;  // beyond any machine: an overflow in waiting
    n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) return false;
  std::string unit = text.substr(i);
  int shift = 0;
  if (!unit.empty()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
    const std::string rest = unit.substr(1);
    if (rest != "" && rest != "B" && rest != "iB") return false;
    if (u == 'K') shift = 10;
    else if (u == 'M') shift = 20;
    else if (u == 'G') shift = 30;
    else if (u == 'T') shift = 40;
    else return false;
  }
  if (n > (std::uint64_t{1} << (62 - shift))) return false;
  *bytes = n << shift;
  return *bytes > 0;
}

std::uint64_t default_harness_memory_bytes() {
  static const std::uint64_t half = usable_memory_bytes() / 2;  // read once: it does not change meanwhile
  return half;
}

ProcessLimits harness_process_limits() {
  ProcessLimits l;
  l.no_core = true;
  l.contain = true;                        // nothing it starts leaves its group or outlives it
  l.cpu_s = 3600;                          // all threads together (libtorch drivers run pools)
  l.file_bytes = std::uint64_t{16} << 30;  // output dumps of the largest problems fit
  const std::string net = env_or("KERNELBLASTER_SANDBOX_NETWORK", "on");
  if (net == "on" || net == "1") l.no_network = true;
  else if (net == "off" || net == "0") l.no_network = false;
  else
    throw std::runtime_error("KERNELBLASTER_SANDBOX_NETWORK must be on or off, not " + quoted_excerpt(net));
  const char* memory = std::getenv("KERNELBLASTER_SANDBOX_MEMORY");
  if (memory && *memory) {
    if (!parse_memory_size(memory, &l.resident_bytes))
      throw std::runtime_error("KERNELBLASTER_SANDBOX_MEMORY must be a size such as 16G or 512M, or off, not " +
                               quoted_excerpt(memory));
  } else {
    l.resident_bytes = default_harness_memory_bytes();
  }
  return l;
}

ProcessLimits candidate_process_limits(ProcessLimits limits, const std::string& original_dir,
                                       const std::string& binary) {
  const std::string view = env_or("KERNELBLASTER_SANDBOX_VIEW", "on");
  if (view != "on" && view != "1" && view != "off" && view != "0")
    throw std::runtime_error("KERNELBLASTER_SANDBOX_VIEW must be on or off, not " + quoted_excerpt(view));
  const std::string dir = std::filesystem::absolute(original_dir).lexically_normal().string();
  const std::string program = std::filesystem::absolute(binary).lexically_normal().string();
  const bool inside = program.rfind(dir + "/", 0) == 0;
  if ((view == "on" || view == "1") && !inside) limits.hidden_dirs.push_back(dir);
  return limits;
}

}  // namespace kernelblaster
