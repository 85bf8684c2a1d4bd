// Why hardware counters are unavailable, said in one line for profile_note,
// and the test-only fault switch that lets the refusals be tested on a GPU
// that does allow counters.
//
// Compiled into the harness runtime (it reads CUPTI's result codes), like
// cupti_host_config.cc; the tool itself never links it.
#pragma once

#include <optional>
#include <string>

namespace kernelblaster::runtime {

// The cause behind a CUPTI result that refuses counters, in words, with the
// result's own name in parentheses ("no permission to read GPU performance
// counters (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): ..."). Results that are not
// about access give CUPTI's own text.
std::string counter_error_text(int cupti_result);

// How cuptiProfilerDeviceSupported answered, per configuration aspect
// (CUpti_Profiler_Support_Level values).
struct DeviceSupport {
  int architecture = 0, sli = 0, vgpu = 0, confidential_compute = 0, cmp = 0, wsl = 0;
};
// Which aspects refuse counters, in words ("vGPU: the hypervisor has not
// enabled counters for this virtual GPU"); "device not supported" when none
// is named.
std::string device_support_text(const DeviceSupport& s);

// KERNELBLASTER_FAULT_PROFILER (tests only): makes the range profiler act as
// if the driver had refused counters at the step where it really would.
//   insufficient_privileges  cuptiRangeProfilerEnable returns
//                            CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
//   virtualized              cuptiProfilerDeviceSupported reports vGPU
//                            profiling disabled by the hypervisor
enum class ProfilerFault { none, insufficient_privileges, virtualized };
// nullopt for an unknown value (the profiler then reports it, never guesses).
std::optional<ProfilerFault> parse_profiler_fault(const std::string& value);
constexpr const char* kProfilerFaultEnv = "KERNELBLASTER_FAULT_PROFILER";

// The note of a profile without counters: "counters unavailable: <why>;
// timing and compile-time facts only". One line whatever `why` holds.
std::string no_counters_note(const std::string& why);

}  // namespace kernelblaster::runtime
