#include "harness/range_profiler.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <chrono>

#include "profile/cupti_host_config.h"

namespace kernelblaster {
namespace {

using profile::cupti_result_text;

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

const char* level(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    default: return "unknown";
  }
}

// Which part of the configuration refuses counters, in words.
std::string unsupported_reason(const CUpti_Profiler_DeviceSupported_Params& p) {
  std::string why;
  auto add = [&](const char* what, CUpti_Profiler_Support_Level l) {
    if (l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += std::string(why.empty() ? "" : ", ") + what + " " + level(l);
  };
  add("architecture", p.architecture);
  add("SLI", p.sli);
  add("vGPU", p.vGpu);
  add("confidential compute", p.confidentialCompute);
  add("CMP", p.cmp);
  add("WSL", p.wsl);
  return why.empty() ? "device not supported" : why;
}

}  // namespace

struct RangeProfiler::State {
  std::unique_ptr<profile::HostConfig> host;
  std::vector<std::string> missing;
  std::string chip;
  int passes = 0;
  int max_ranges = 256;
  CUpti_RangeProfiler_Object* object = nullptr;
  std::vector<std::uint8_t> counter_data;
  bool initialized = false;
  std::map<std::string, double> phases;
};

RangeProfiler::RangeProfiler() : m(std::make_unique<State>()) {}

RangeProfiler::~RangeProfiler() {
  if (m->object) {
    CUpti_RangeProfiler_Disable_Params d{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = m->object;
    cuptiRangeProfilerDisable(&d);
  }
  m->host.reset();
  if (m->initialized) {
    CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    cuptiProfilerDeInitialize(&p);
  }
}

const std::string& RangeProfiler::chip() const { return m->chip; }
int RangeProfiler::passes() const { return m->passes; }
const std::vector<std::string>& RangeProfiler::missing() const { return m->missing; }
const std::map<std::string, double>& RangeProfiler::phase_seconds() const { return m->phases; }

bool RangeProfiler::prepare(int device, const std::vector<std::string>& metrics, int max_ranges,
                            std::string* why_not) {
  auto fail = [&](std::string why) {
    if (why_not) *why_not = "counters unavailable: " + why;
    return false;
  };
  m->max_ranges = max_ranges > 0 ? max_ranges : 256;
  auto t = std::chrono::steady_clock::now();
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUptiResult r = cuptiProfilerInitialize(&init);
  if (r != CUPTI_SUCCESS) return fail(cupti_result_text(r));
  m->initialized = true;

  CUpti_Profiler_DeviceSupported_Params sup{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  sup.cuDevice = device;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  r = cuptiProfilerDeviceSupported(&sup);
  if (r != CUPTI_SUCCESS) return fail(cupti_result_text(r));
  if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return fail(unsupported_reason(sup));

  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<std::size_t>(device);
  if ((r = cuptiDeviceGetChipName(&chip)) != CUPTI_SUCCESS) return fail(failed("chip name", r));
  m->chip = chip.pChipName ? chip.pChipName : "";

  CUcontext ctx = current_context();
  if (!ctx) return fail("no current CUDA context");
  // The availability image must be read before the profiler is enabled.
  CUpti_Profiler_GetCounterAvailability_Params av{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  av.ctx = ctx;
  if ((r = cuptiProfilerGetCounterAvailability(&av)) != CUPTI_SUCCESS) return fail(cupti_result_text(r));
  std::vector<std::uint8_t> availability(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = availability.data();
  if ((r = cuptiProfilerGetCounterAvailability(&av)) != CUPTI_SUCCESS) return fail(cupti_result_text(r));

  lap(m->phases, "init", t);
  m->host = std::make_unique<profile::HostConfig>(m->chip, std::move(availability));
  if (!m->host->ok()) return fail(m->host->error());
  m->missing = m->host->add_metrics(metrics);
  if (m->host->metrics().empty()) return fail("the chip accepts none of the requested metrics");
  const std::vector<std::uint8_t>& image = m->host->config_image();
  if (image.empty()) return fail(m->host->error());
  m->passes = static_cast<int>(m->host->passes());
  lap(m->phases, "host_config", t);

  CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  if ((r = cuptiRangeProfilerEnable(&en)) != CUPTI_SUCCESS) return fail(cupti_result_text(r));
  m->object = en.pRangeProfilerObject;

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
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pRangeProfilerObject = m->object;
  ci.counterDataSize = m->counter_data.size();
  ci.pCounterData = m->counter_data.data();
  if ((r = cuptiRangeProfilerCounterDataImageInitialize(&ci)) != CUPTI_SUCCESS)
    return fail(failed("counter data image", r));
  lap(m->phases, "enable", t);
  return true;
}

RangeProfile RangeProfiler::profile(const std::function<void()>& prepare, const std::function<void()>& call) {
  RangeProfile out;
  if (!m->object) {
    out.error = "range profiler not prepared";
    return out;
  }
  auto t = std::chrono::steady_clock::now();
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
  CUptiResult r = cuptiRangeProfilerSetConfig(&cfg);
  if (r != CUPTI_SUCCESS) {
    out.error = failed("set config", r);
    return out;
  }
  bool submitted = false;
  for (int pass = 0; pass < 256 && !submitted; ++pass) {
    prepare();
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = m->object;
    if ((r = cuptiRangeProfilerStart(&start)) != CUPTI_SUCCESS) {
      out.error = failed("start", r);
      return out;
    }
    call();
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = m->object;
    if ((r = cuptiRangeProfilerStop(&stop)) != CUPTI_SUCCESS) {
      out.error = failed("stop", r);
      return out;
    }
    submitted = stop.isAllPassSubmitted;
  }
  if (!submitted) {
    out.error = "the profiler asked for more than 256 passes";
    return out;
  }
  lap(m->phases, "passes", t);
  CUpti_RangeProfiler_DecodeData_Params dec{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dec.pRangeProfilerObject = m->object;
  if ((r = cuptiRangeProfilerDecodeData(&dec)) != CUPTI_SUCCESS) {
    out.error = failed("decode", r);
    return out;
  }
  out.dropped = dec.numOfRangeDropped;
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
