#include "tuner/reverify.h"

#include <algorithm>
#include <future>

namespace kernelblaster::tuner {

bool Reverification::passed() const { return !checks.empty() && failure() == nullptr; }

const DeviceCheck* Reverification::failure() const {
  for (const DeviceCheck& c : checks)
    if (!c.result.verified()) return &c;
  return nullptr;
}

const DeviceCheck* Reverification::slowest() const {
  const DeviceCheck* low = nullptr;
  for (const DeviceCheck& c : checks)
    if (c.result.verified() && (!low || c.result.speedup < low->result.speedup)) low = &c;
  return low;
}

int reverify_seeds_per_device(int total, int devices) {
  devices = std::max(1, devices);
  return std::max(3, (total + devices - 1) / devices);
}

Reverification reverify(Measurer& measurer, const Configuration& winner, const std::vector<int>& devices,
                        int total) {
  std::vector<int> on = devices.empty() ? std::vector<int>{0} : devices;
  int seeds = reverify_seeds_per_device(total, static_cast<int>(on.size()));
  std::vector<std::future<CandidateResult>> running;
  for (int device : on)
    running.push_back(std::async(std::launch::async, [&measurer, &winner, device, seeds] {
      try {
        return measurer.remeasure(winner, device, seeds);
      } catch (const std::exception& x) {
        CandidateResult m;
        m.status = Status::tool_error;
        m.detail = x.what();
        m.speedup = 0;
        return m;
      }
    }));
  Reverification r;
  for (std::size_t i = 0; i < on.size(); ++i) r.checks.push_back({on[i], seeds, running[i].get()});
  return r;
}

}  // namespace kernelblaster::tuner
