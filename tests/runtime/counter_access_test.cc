#include "runtime/counter_access.h"

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <gtest/gtest.h>

namespace kernelblaster::runtime {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CounterAccess, PrivilegeErrorNamesTheCauseAndTheResult) {
  std::string t = counter_error_text(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  EXPECT_TRUE(has(t, "no permission")) << t;
  EXPECT_TRUE(has(t, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << t;
  EXPECT_TRUE(has(t, "NVreg_RestrictProfilingToAdminUsers")) << t;
}

TEST(CounterAccess, VirtualizationErrorsNameTheHypervisorOrVirtualGpu) {
  EXPECT_TRUE(has(counter_error_text(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES), "hypervisor"));
  EXPECT_TRUE(has(counter_error_text(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED), "virtualized GPU"));
  EXPECT_TRUE(has(counter_error_text(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED), "MIG"));
  EXPECT_TRUE(has(counter_error_text(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), "another profiler"));
}

TEST(CounterAccess, OtherResultsKeepCuptisOwnText) {
  EXPECT_TRUE(has(counter_error_text(CUPTI_ERROR_UNKNOWN), "CUPTI_ERROR_UNKNOWN"));
}

TEST(CounterAccess, DeviceSupportNamesEachRefusingAspect) {
  DeviceSupport s{CUPTI_PROFILER_CONFIGURATION_SUPPORTED, CUPTI_PROFILER_CONFIGURATION_SUPPORTED,
                  CUPTI_PROFILER_CONFIGURATION_DISABLED,  CUPTI_PROFILER_CONFIGURATION_SUPPORTED,
                  CUPTI_PROFILER_CONFIGURATION_SUPPORTED, CUPTI_PROFILER_CONFIGURATION_SUPPORTED};
  EXPECT_EQ(device_support_text(s), "vGPU: the hypervisor has not enabled counters for this virtual GPU");
  s.vgpu = CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
  s.wsl = CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
  EXPECT_EQ(device_support_text(s), "vGPU unsupported, WSL unsupported");
  s = DeviceSupport{CUPTI_PROFILER_CONFIGURATION_SUPPORTED, CUPTI_PROFILER_CONFIGURATION_SUPPORTED,
                    CUPTI_PROFILER_CONFIGURATION_SUPPORTED, CUPTI_PROFILER_CONFIGURATION_SUPPORTED,
                    CUPTI_PROFILER_CONFIGURATION_SUPPORTED, CUPTI_PROFILER_CONFIGURATION_SUPPORTED};
  EXPECT_EQ(device_support_text(s), "device not supported");
}

TEST(CounterAccess, FaultNamesParse) {
  EXPECT_EQ(parse_profiler_fault(""), ProfilerFault::none);
  EXPECT_EQ(parse_profiler_fault("none"), ProfilerFault::none);
  EXPECT_EQ(parse_profiler_fault("insufficient_privileges"), ProfilerFault::insufficient_privileges);
  EXPECT_EQ(parse_profiler_fault("virtualized"), ProfilerFault::virtualized);
  EXPECT_FALSE(parse_profiler_fault("Virtualized").has_value());
}

TEST(CounterAccess, NoCountersNoteIsOneLine) {
  std::string n = no_counters_note("first\nsecond");
  EXPECT_EQ(n, "counters unavailable: first second; timing and compile-time facts only");
}

}  // namespace
}  // namespace kernelblaster::runtime
