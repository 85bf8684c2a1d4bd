#include "runtime/counter_access.h"

#include <cupti.h>
#include <cupti_profiler_target.h>

namespace kernelblaster::runtime {
namespace {

std::string result_name(int r) {
  const char* s = nullptr;
  cuptiGetResultString(static_cast<CUptiResult>(r), &s);
  return s ? s : "CUPTI error " + std::to_string(r);
}

const char* level_text(int l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    default: return "unknown";
  }
}

}  // namespace

std::string counter_error_text(int r) {
  std::string cause, hint;
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      cause = "no permission to read GPU performance counters";
      hint = ": run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0";
      break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      cause = "the hypervisor does not allow performance counters on this virtual GPU";
      break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED: cause = "counters are not supported on a virtualized GPU"; break;
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      cause = "counters are not allowed in confidential-computing mode";
      break;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: cause = "counters are not supported on a CMP device"; break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: cause = "counters are not supported on a MIG instance"; break;
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: cause = "counters are not supported in SLI"; break;
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: cause = "counters are not supported under WSL"; break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      cause = "another profiler (Nsight Compute, Nsight Systems, a debugger) holds the counters";
      break;
    default: return result_name(r);
  }
  return cause + " (" + result_name(r) + ")" + hint;
}

std::string device_support_text(const DeviceSupport& s) {
  std::string why;
  auto add = [&](int level, const std::string& what) {
    if (level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
    why += (why.empty() ? "" : ", ") + what + " " + level_text(level);
  };
  add(s.architecture, "GPU architecture");
  add(s.sli, "SLI");
  // DISABLED here means the hypervisor has not enabled profiling for this vGPU.
  if (s.vgpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
    why += std::string(why.empty() ? "" : ", ") + "vGPU: the hypervisor has not enabled counters for this virtual GPU";
  else
    add(s.vgpu, "vGPU");
  add(s.confidential_compute, "confidential compute");
  add(s.cmp, "CMP");
  add(s.wsl, "WSL");
  return why.empty() ? "device not supported" : why;
}

std::optional<ProfilerFault> parse_profiler_fault(const std::string& v) {
  if (v.empty() || v == "none") return ProfilerFault::none;
  if (v == "insufficient_privileges") return ProfilerFault::insufficient_privileges;
  if (v == "virtualized") return ProfilerFault::virtualized;
  return std::nullopt;
}

std::string no_counters_note(const std::string& why) {
  std::string line = "counters unavailable: " + why + "; timing and compile-time facts only";
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  return line;
}

}  // namespace kernelblaster::runtime
