// CUPTI's Profiler Host API (cupti_profiler_host.h): metric names checked
// against a chip, config images and pass counts, and the evaluation of
// counter data. Needs libcupti (which dlopens libnvperf_host) but no GPU:
// with chip "GH100" and no counter-availability image it works anywhere, so
// tests check metric names and pass counts on machines without a GPU.
//
// Compiled into the harness runtime (and the profile tests), not into the
// tool, which stays free of CUPTI.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kernelblaster::runtime {

class HostConfig {
 public:
  // `availability` is the counter-availability image of the device (may be
  // empty off the GPU). Never throws: check ok() and error().
  HostConfig(std::string chip, std::vector<std::uint8_t> availability = {});
  ~HostConfig();
  HostConfig(const HostConfig&) = delete;
  HostConfig& operator=(const HostConfig&) = delete;

  bool ok() const { return m_error.empty(); }
  const std::string& error() const { return m_error; }

  // Adds the names the chip accepts as one pass group; returns the rejected
  // ones (each tried on its own, so one bad name never hides the others).
  std::vector<std::string> add_metrics(const std::vector<std::string>& names);
  const std::vector<std::string>& metrics() const { return m_metrics; }
  // The config image of the metrics added so far (built once, then cached).
  const std::vector<std::uint8_t>& config_image();
  // Replay passes the config image needs; 0 on error.
  std::size_t passes();
  // Evaluates one range of a decoded counter-data image. Values that are not
  // finite are left out.
  std::map<std::string, double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range);

 private:
  bool accepts(const std::string& name);
  struct Object;
  Object* m_host = nullptr;
  std::string m_chip;
  std::vector<std::uint8_t> m_availability;
  std::vector<std::string> m_metrics;
  std::vector<std::uint8_t> m_image;
  std::string m_error;
};

// Whether this process can load the host library at all (libnvperf_host).
bool host_api_available(std::string* why_not);

std::string cupti_result_text(int result);

}  // namespace kernelblaster::runtime
