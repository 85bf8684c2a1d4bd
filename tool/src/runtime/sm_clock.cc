#include "runtime/sm_clock.h"

#include <dlfcn.h>

namespace kernelblaster {
namespace {
using Init = int (*)();
using ByUuid = int (*)(const char*, void**);
using ClockInfo = int (*)(void*, int, unsigned*);
constexpr int kClockSm = 1;  // NVML_CLOCK_SM
}  // namespace

double read_sm_clock_mhz(const std::string& uuid) {
  static void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  static auto init = reinterpret_cast<Init>(::dlsym(lib, "nvmlInit_v2"));
  static auto by_uuid = reinterpret_cast<ByUuid>(::dlsym(lib, "nvmlDeviceGetHandleByUUID"));
  static auto clock = reinterpret_cast<ClockInfo>(::dlsym(lib, "nvmlDeviceGetClockInfo"));
  static bool ready = init && by_uuid && clock && init() == 0;
  if (!ready) return 0;
  void* device = nullptr;
  unsigned mhz = 0;
  if (by_uuid(uuid.c_str(), &device) != 0 || clock(device, kClockSm, &mhz) != 0) return 0;
  return mhz;
}

}  // namespace kernelblaster
