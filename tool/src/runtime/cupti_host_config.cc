#include "runtime/cupti_host_config.h"

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <cmath>

namespace kernelblaster::runtime {

struct HostConfig::Object {
  CUpti_Profiler_Host_Object* handle = nullptr;
};

namespace {

CUpti_Profiler_Host_Object* make_host(const std::string& chip, const std::vector<std::uint8_t>& availability,
                                      CUptiResult* result) {
  CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  *result = cuptiProfilerHostInitialize(&p);
  return *result == CUPTI_SUCCESS ? p.pHostObject : nullptr;
}

void free_host(CUpti_Profiler_Host_Object* h) {
  if (!h) return;
  CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = h;
  cuptiProfilerHostDeinitialize(&p);
}

CUptiResult add(CUpti_Profiler_Host_Object* h, std::vector<const char*>& names) {
  CUpti_Profiler_Host_ConfigAddMetrics_Params p{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  p.pHostObject = h;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return cuptiProfilerHostConfigAddMetrics(&p);
}

}  // namespace

std::string cupti_result_text(int result) {
  const char* s = nullptr;
  cuptiGetResultString(static_cast<CUptiResult>(result), &s);
  return s ? s : "CUPTI error " + std::to_string(result);
}

HostConfig::HostConfig(std::string chip, std::vector<std::uint8_t> availability)
    : m_chip(std::move(chip)), m_availability(std::move(availability)) {
  CUptiResult r = CUPTI_SUCCESS;
  m_host = new Object;
  m_host->handle = make_host(m_chip, m_availability, &r);
  if (!m_host->handle) m_error = "profiler host for chip " + m_chip + ": " + cupti_result_text(r);
}

HostConfig::~HostConfig() {
  if (m_host) free_host(m_host->handle);
  delete m_host;
}

// A rejected name leaves a host object unusable, so each name is tried on a
// throw-away object first.
bool HostConfig::accepts(const std::string& name) {
  CUptiResult r = CUPTI_SUCCESS;
  CUpti_Profiler_Host_Object* probe = make_host(m_chip, m_availability, &r);
  if (!probe) return false;
  std::vector<const char*> one = {name.c_str()};
  bool ok = add(probe, one) == CUPTI_SUCCESS;
  free_host(probe);
  return ok;
}

std::vector<std::string> HostConfig::add_metrics(const std::vector<std::string>& names) {
  std::vector<std::string> rejected;
  if (!ok()) return names;
  std::vector<const char*> all;
  for (const std::string& n : names) all.push_back(n.c_str());
  // One call is one pass group: adding names one by one costs a pass each.
  if (!all.empty() && add(m_host->handle, all) == CUPTI_SUCCESS) {
    m_metrics.insert(m_metrics.end(), names.begin(), names.end());
    m_image.clear();
    return rejected;
  }
  // Something was rejected: find what, and start over with the rest.
  std::vector<std::string> good;
  for (const std::string& n : names) (accepts(n) ? good : rejected).push_back(n);
  free_host(m_host->handle);
  CUptiResult r = CUPTI_SUCCESS;
  m_host->handle = make_host(m_chip, m_availability, &r);
  if (!m_host->handle) {
    m_error = "profiler host for chip " + m_chip + ": " + cupti_result_text(r);
    return names;
  }
  std::vector<std::string> keep = m_metrics;
  keep.insert(keep.end(), good.begin(), good.end());
  std::vector<const char*> ptrs;
  for (const std::string& n : keep) ptrs.push_back(n.c_str());
  if (!ptrs.empty() && (r = add(m_host->handle, ptrs)) != CUPTI_SUCCESS) {
    m_error = "adding metrics: " + cupti_result_text(r);
    return names;
  }
  m_metrics = keep;
  m_image.clear();
  return rejected;
}

const std::vector<std::uint8_t>& HostConfig::config_image() {
  if (!m_image.empty() || !ok() || m_metrics.empty()) return m_image;
  CUpti_Profiler_Host_GetConfigImageSize_Params s{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  s.pHostObject = m_host->handle;
  CUptiResult r = cuptiProfilerHostGetConfigImageSize(&s);
  if (r != CUPTI_SUCCESS) {
    m_error = "config image size: " + cupti_result_text(r);
    return m_image;
  }
  std::vector<std::uint8_t> image(s.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params g{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  g.pHostObject = m_host->handle;
  g.configImageSize = image.size();
  g.pConfigImage = image.data();
  if ((r = cuptiProfilerHostGetConfigImage(&g)) != CUPTI_SUCCESS) {
    m_error = "config image: " + cupti_result_text(r);
    return m_image;
  }
  m_image = std::move(image);
  return m_image;
}

std::size_t HostConfig::passes() {
  const std::vector<std::uint8_t>& image = config_image();
  if (image.empty()) return 0;
  CUpti_Profiler_Host_GetNumOfPasses_Params p{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  p.configImageSize = image.size();
  p.pConfigImage = const_cast<std::uint8_t*>(image.data());
  return cuptiProfilerHostGetNumOfPasses(&p) == CUPTI_SUCCESS ? p.numOfPasses : 0;
}

std::map<std::string, double> HostConfig::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range) {
  std::map<std::string, double> out;
  if (!ok() || m_metrics.empty()) return out;
  std::vector<const char*> names;
  for (const std::string& n : m_metrics) names.push_back(n.c_str());
  std::vector<double> values(names.size(), NAN);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pHostObject = m_host->handle;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p);
  if (r != CUPTI_SUCCESS) {
    m_error = "evaluating range " + std::to_string(range) + ": " + cupti_result_text(r);
    return out;
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (std::isfinite(values[i])) out[m_metrics[i]] = values[i];
  return out;
}

bool host_api_available(std::string* why_not) {
  HostConfig probe("GH100");
  if (!probe.ok() && why_not) *why_not = probe.error();
  return probe.ok();
}

}  // namespace kernelblaster::runtime
