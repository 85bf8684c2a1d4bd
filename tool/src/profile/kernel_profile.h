// One kernel of a profiled call, as the profiler reports it to the tool: its
// metrics under the names of METRICS.md; a metric not collected is absent.
#pragma once

#include <map>
#include <string>

namespace kernelblaster {

struct KernelProfile {
  std::string name;
  std::map<std::string, double> metrics;
};

}  // namespace kernelblaster
