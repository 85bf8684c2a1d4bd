#include "common/protocol.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/enum_names.h"

namespace kernelblaster {

constexpr EnumName<DriverVerdict> kDriverVerdicts[] = {
    {DriverVerdict::none, ""}, {DriverVerdict::passed, "passed"}, {DriverVerdict::failed, "failed"}};

const char* driver_verdict_name(DriverVerdict v) { return name_in(kDriverVerdicts, v, ""); }

void to_json(nlohmann::json& j, const DriverVerdict& v) { j = driver_verdict_name(v); }
void from_json(const nlohmann::json& j, DriverVerdict& v) {
  v = j.is_string() ? value_in(kDriverVerdicts, j.get<std::string>()).value_or(DriverVerdict::none) : DriverVerdict::none;
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunRequest, size, seed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimedCheck, at, seed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingRequest, enabled, budget_ms, warmup_ms, min_runs, max_runs,
                                                flush_l2, repeat_probe_runs, seed, sizes, checks,
                                                calls_per_run)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProfileRequest, size, set, metrics, seed, max_kernels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Plan, runs, timing, profile, lock_dir, lock_timeout_s, device,
                                                keep_initial_outputs, probe_initial_outputs, dump_oracles, isolate)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ToleranceSpec, rel_l2, atol, rtol)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BufferDecl, name, dtype, role, tolerance, elements_per_size)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SizeDecl, label, dims, validation_only, flops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OutputDump, name, file, count, poison_byte, dtype, allclose_rtol,
                                                allclose_atol, allclose_equal_nan)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunReport, index, size, seed, outputs, inputs_modified, oracle,
                                                driver_verdict, driver_detail, activities, repeated_pointers,
                                                timed_call, input_checksums, outside_writes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelTiming, name, median_ns, q1_ns, q3_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingReport, size, method, runs, median_ns, q1_ns, q3_ns, min_ns,
                                                event_median_ns, busy_median_ns, busy_q1_ns, busy_q3_ns, kernels_per_run,
                                                issue_median_ns,
                                                kernels, repeat_runs, repeat_median_ns,
                                                untimed_runs, foreign_activities, untimed_detail, empty_runs,
                                                unwritten_runs, unwritten_detail, unwritten_max, sm_clock_mhz, wall_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceInfo, name, cc_major, cc_minor, sm_count, l2_bytes,
                                                memory_bytes, driver_version, uuid)
constexpr EnumName<HarnessErrorKind> kHarnessErrorKinds[] = {
    {HarnessErrorKind::none, ""},
    {HarnessErrorKind::cuda_error, "cuda_error"},
    {HarnessErrorKind::launch_error, "launch_error"},
    {HarnessErrorKind::harness_error, "harness_error"},
    {HarnessErrorKind::lock_timeout, "lock_timeout"},
};

const char* harness_error_kind_name(HarnessErrorKind k) { return name_in(kHarnessErrorKinds, k, "unknown"); }

void to_json(nlohmann::json& j, const HarnessError& e) {
  j = {{"kind", harness_error_kind_name(e.kind)}, {"message", e.message}, {"run", e.run}, {"phase", e.phase}};
}

void from_json(const nlohmann::json& j, HarnessError& e) {
  const std::string kind = j.value("kind", std::string());
  e.kind = value_in(kHarnessErrorKinds, kind).value_or(HarnessErrorKind::unknown);
  e.message = j.value("message", std::string());
  e.run = j.value("run", -1);
  e.phase = j.value("phase", std::string());
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProfiledKernel, name, counters, launch)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProfileReport, requested, set, chip, passes, note, missing, kernels,
                                                flops, bytes, wall_s, phase_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HarnessReport, harness, device, sizes, buffers, runs, timings, profile,
                                                foreign_activities, foreign_detail, notes, error, wall_s,
                                                kept_initial_outputs, phase_s, persisting_l2_bytes, isolated_bytes,
                                                process_changes)

int calls_per_run(const TimingRequest& request, int size) {
  if (size < 0 || static_cast<std::size_t>(size) >= request.calls_per_run.size()) return 1;
  return std::max(1, request.calls_per_run[static_cast<std::size_t>(size)]);
}

namespace {
template <class T>
T parse(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text).get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed ") + what + ": " + e.what());
  }
}
}  // namespace

std::string plan_to_json(const Plan& plan) { return nlohmann::json(plan).dump(2); }
Plan plan_from_json(const std::string& text) { return parse<Plan>(text, "plan"); }
std::string report_to_json(const HarnessReport& report) { return nlohmann::json(report).dump(2); }
HarnessReport report_from_json(const std::string& text) { return parse<HarnessReport>(text, "harness report"); }

}  // namespace kernelblaster
