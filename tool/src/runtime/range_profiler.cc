#include "runtime/range_profiler.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdlib>

#include "runtime/counter_access.h"
#include "runtime/cupti_host_config.h"

namespace kernelblaster {
namespace {

using runtime::cupti_result_text;

// Adds the seconds since `t` to `phases[name]` and restarts `t`.
void lap(std::map<std::string, double>& phases, const char* name, std::chrono::steady_clock::time_point& t) {
  auto now = std::chrono::steady_clock::now();
  phases[name] += std::chrono::duration<double>(now - t).count();
  t = now;
}

std::string failed(const char* what, CUptiResult r) { return std::string(what) + ": " + cupti_result_text(r); }

// The current context without linking libcuda: the runtime hands out the
// driver's entry point.
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      !fn)
    return nullptr;
  CUcontext ctx = nullptr;
  return reinterpret_cast<GetCurrent>(fn)(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
}

}  // namespace

struct RangeProfiler::State {
  std::unique_ptr<runtime::HostConfig> host;
  std::vector<std::string> missing;
  std::string chip;
  int passes = 0;
  int max_ranges = 256;
  CUcontext ctx = nullptr;
  runtime::ProfilerFault fault = runtime::ProfilerFault::none;
  CUpti_RangeProfiler_Object* object = nullptr;
  std::vector<std::uint8_t> counter_data;
  bool initialized = false;
  bool configured = false;
  std::map<std::string, double> phases;
};

RangeProfiler::RangeProfiler() : m(std::make_unique<State>()) {}

RangeProfiler::~RangeProfiler() { release(); }

void RangeProfiler::release() {
  auto t = std::chrono::steady_clock::now();
  bool any = m->object || m->initialized;
  if (m->object) {
    CUpti_RangeProfiler_Disable_Params d{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = m->object;
    cuptiRangeProfilerDisable(&d);
    m->object = nullptr;
    m->configured = false;
  }
  m->host.reset();
  if (m->initialized) {
    CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    cuptiProfilerDeInitialize(&p);
    m->initialized = false;
  }
  if (any) lap(m->phases, "teardown", t);
}

const std::string& RangeProfiler::chip() const { return m->chip; }
int RangeProfiler::passes() const { return m->passes; }
const std::vector<std::string>& RangeProfiler::missing() const { return m->missing; }
const std::map<std::string, double>& RangeProfiler::phase_seconds() const { return m->phases; }

bool RangeProfiler::prepare(int device, const std::vector<std::string>& metrics, int max_ranges,
                            std::string* why_not) {
  return setup(device, metrics, max_ranges, why_not) && enable(why_not);
}

bool RangeProfiler::setup(int device, const std::vector<std::string>& metrics, int max_ranges,
                          std::string* why_not) {
  auto fail = [&](std::string why) {
    if (why_not) *why_not = std::move(why);
    return false;
  };
  m->max_ranges = max_ranges > 0 ? max_ranges : 256;
  if (const char* f = std::getenv(runtime::kProfilerFaultEnv)) {
    auto fault = runtime::parse_profiler_fault(f);
    if (!fault) return fail(std::string(runtime::kProfilerFaultEnv) + "=" + f + " is not a known fault");
    m->fault = *fault;
  }
  auto t = std::chrono::steady_clock::now();
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUptiResult r = cuptiProfilerInitialize(&init);
  if (r != CUPTI_SUCCESS) return fail(runtime::counter_error_text(r));
  m->initialized = true;
  lap(m->phases, "initialize", t);

  CUpti_Profiler_DeviceSupported_Params sup{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  sup.cuDevice = device;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  r = cuptiProfilerDeviceSupported(&sup);
  if (r != CUPTI_SUCCESS) return fail(runtime::counter_error_text(r));
  if (m->fault == runtime::ProfilerFault::virtualized) {
    // What a vGPU whose hypervisor keeps counters off answers.
    sup.vGpu = CUPTI_PROFILER_CONFIGURATION_DISABLED;
    sup.isSupported = CUPTI_PROFILER_CONFIGURATION_DISABLED;
  }
  if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return fail(runtime::device_support_text(
        {sup.architecture, sup.sli, sup.vGpu, sup.confidentialCompute, sup.cmp, sup.wsl}));

  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<std::size_t>(device);
  if ((r = cuptiDeviceGetChipName(&chip)) != CUPTI_SUCCESS) return fail(failed("chip name", r));
  m->chip = chip.pChipName ? chip.pChipName : "";
  lap(m->phases, "device_check", t);

  // The device's primary context, current on this thread too (setup may run
  // on a thread of its own; since CUDA 12 cudaSetDevice binds it, no GPU work).
  if (cudaSetDevice(device) != cudaSuccess) return fail("no CUDA context");
  m->ctx = current_context();
  if (!m->ctx) return fail("no current CUDA context");
  // The availability image must be read before the profiler is enabled.
  CUpti_Profiler_GetCounterAvailability_Params av{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  av.ctx = m->ctx;
  if ((r = cuptiProfilerGetCounterAvailability(&av)) != CUPTI_SUCCESS) return fail(runtime::counter_error_text(r));
  std::vector<std::uint8_t> availability(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = availability.data();
  if ((r = cuptiProfilerGetCounterAvailability(&av)) != CUPTI_SUCCESS) return fail(runtime::counter_error_text(r));
  lap(m->phases, "availability", t);

  m->host = std::make_unique<runtime::HostConfig>(m->chip, std::move(availability));
  if (!m->host->ok()) return fail(m->host->error());
  m->missing = m->host->add_metrics(metrics);
  if (m->host->metrics().empty()) return fail("the chip accepts none of the requested metrics");
  const std::vector<std::uint8_t>& image = m->host->config_image();
  if (image.empty()) return fail(m->host->error());
  m->passes = static_cast<int>(m->host->passes());
  lap(m->phases, "host_config", t);
  return true;
}

bool RangeProfiler::enable(std::string* why_not, int max_ranges) {
  auto fail = [&](std::string why) {
    if (why_not) *why_not = std::move(why);
    return false;
  };
  if (!m->host || !m->ctx) return fail("range profiler not set up");
  if (max_ranges > 0 && max_ranges < m->max_ranges) m->max_ranges = max_ranges;
  auto t = std::chrono::steady_clock::now();
  CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = m->ctx;
  // The fault stands in for the driver's answer where counters are restricted.
  CUptiResult r = m->fault == runtime::ProfilerFault::insufficient_privileges ? CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                                                                              : cuptiRangeProfilerEnable(&en);
  if (r != CUPTI_SUCCESS) return fail(runtime::counter_error_text(r));
  m->object = en.pRangeProfilerObject;
  lap(m->phases, "enable", t);

  std::vector<const char*> names;
  for (const std::string& n : m->host->metrics()) names.push_back(n.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params sz{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  sz.pRangeProfilerObject = m->object;
  sz.pMetricNames = names.data();
  sz.numMetrics = names.size();
  sz.maxNumOfRanges = static_cast<std::size_t>(m->max_ranges);
  sz.maxNumRangeTreeNodes = static_cast<std::uint32_t>(m->max_ranges);
  if ((r = cuptiRangeProfilerGetCounterDataSize(&sz)) != CUPTI_SUCCESS) return fail(failed("counter data size", r));
  m->counter_data.assign(sz.counterDataSize, 0);
  lap(m->phases, "counter_data", t);
  return true;
}

bool RangeProfiler::enabled() const { return m->object != nullptr; }

bool RangeProfiler::configure(std::string* why_not) {
  if (!m->object) {
    if (why_not) *why_not = "range profiler not enabled";
    return false;
  }
  auto t = std::chrono::steady_clock::now();
  // A fresh image per profile: ranges of an earlier call never mix in.
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pRangeProfilerObject = m->object;
  ci.counterDataSize = m->counter_data.size();
  ci.pCounterData = m->counter_data.data();
  CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&ci);
  if (r != CUPTI_SUCCESS) {
    if (why_not) *why_not = failed("counter data image", r);
    return false;
  }
  lap(m->phases, "counter_data", t);
  const std::vector<std::uint8_t>& image = m->host->config_image();
  CUpti_RangeProfiler_SetConfig_Params cfg{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  cfg.pRangeProfilerObject = m->object;
  cfg.configSize = image.size();
  cfg.pConfig = image.data();
  cfg.counterDataImageSize = m->counter_data.size();
  cfg.pCounterDataImage = m->counter_data.data();
  cfg.range = CUPTI_AutoRange;
  cfg.replayMode = CUPTI_UserReplay;
  cfg.maxRangesPerPass = static_cast<std::size_t>(m->max_ranges);
  cfg.numNestingLevels = 1;
  cfg.minNestingLevel = 1;
  cfg.passIndex = 0;
  cfg.targetNestingLevel = 1;
  if ((r = cuptiRangeProfilerSetConfig(&cfg)) != CUPTI_SUCCESS) {
    if (why_not) *why_not = failed("set config", r);
    return false;
  }
  lap(m->phases, "set_config", t);
  m->configured = true;
  return true;
}

bool RangeProfiler::run_passes(const std::function<void()>& prepare, const std::function<void()>& call, bool counted,
                               std::size_t* dropped, std::string* why_not) {
  auto fail = [&](std::string why) {
    if (why_not) *why_not = std::move(why);
    return false;
  };
  if (!m->configured && !configure(why_not)) return false;
  m->configured = false;  // the next run starts from a fresh image
  auto t = std::chrono::steady_clock::now();
  CUptiResult r = CUPTI_SUCCESS;
  bool submitted = false;
  for (int pass = 0; pass < 256 && !submitted; ++pass) {
    // A counted run's first pass is timed step by step ("first_prepare",
    // "first_start", "first_call", "first_stop").
    auto step = [&](const char* name) {
      if (counted && pass == 0) lap(m->phases, name, t);
    };
    prepare();
    step("first_prepare");
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = m->object;
    if ((r = cuptiRangeProfilerStart(&start)) != CUPTI_SUCCESS) return fail(failed("start", r));
    step("first_start");
    call();
    step("first_call");
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = m->object;
    if ((r = cuptiRangeProfilerStop(&stop)) != CUPTI_SUCCESS) return fail(failed("stop", r));
    step("first_stop");
    submitted = stop.isAllPassSubmitted;
  }
  if (!submitted) return fail("the profiler asked for more than 256 passes");
  lap(m->phases, counted ? "passes" : "prime", t);
  CUpti_RangeProfiler_DecodeData_Params dec{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dec.pRangeProfilerObject = m->object;
  if ((r = cuptiRangeProfilerDecodeData(&dec)) != CUPTI_SUCCESS) return fail(failed("decode", r));
  if (dropped) *dropped = dec.numOfRangeDropped;
  lap(m->phases, counted ? "evaluate" : "prime", t);
  return true;
}

bool RangeProfiler::prime(const std::function<void()>& call, std::string* why_not) {
  return run_passes([] {}, call, false, nullptr, why_not);
}

RangeProfile RangeProfiler::profile(const std::function<void()>& prepare, const std::function<void()>& call) {
  RangeProfile out;
  if (!run_passes(prepare, call, true, &out.dropped, &out.error)) return out;
  auto t = std::chrono::steady_clock::now();
  CUptiResult r = CUPTI_SUCCESS;
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = m->counter_data.data();
  info.counterDataImageSize = m->counter_data.size();
  if ((r = cuptiRangeProfilerGetCounterDataInfo(&info)) != CUPTI_SUCCESS) {
    out.error = failed("counter data info", r);
    return out;
  }
  for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
    out.ranges.push_back(m->host->evaluate(m->counter_data, i));
    if (!m->host->ok()) {
      out.error = m->host->error();
      break;
    }
  }
  lap(m->phases, "evaluate", t);
  return out;
}

}  // namespace kernelblaster
