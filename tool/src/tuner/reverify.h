// The winner is believed only after a fresh look: it is measured again with
// new random seeds, twice as many as a search measurement used, before it is
// written. With several GPUs the look is spread over all of them: each
// device runs its own fresh seeds at once (together at least the total, each
// at least the engine's minimum of 3), every one must pass, and the speedup
// believed is the lowest any device measured. One device: one evaluation
// with all the seeds.
#pragma once

#include <string>
#include <vector>

#include "tuner/config_space.h"
#include "tuner/measurer.h"

namespace kernelblaster::tuner {

struct DeviceCheck {
  int device = 0;
  int seeds = 0;
  CandidateResult result;
};

struct Reverification {
  std::vector<DeviceCheck> checks;  // one per device, in the order given
  // Every device verified the winner.
  bool passed() const;
  // The first check that did not pass (device order); null when all passed.
  const DeviceCheck* failure() const;
  // The passing check with the lowest speedup: the one to believe; null
  // when none passed.
  const DeviceCheck* slowest() const;
};

// The seeds each of `devices` runs so that together they run at least
// `total`, each at least 3.
int reverify_seeds_per_device(int total, int devices);

// Re-measures `winner` on every one of `devices` at once (a thread each;
// `measurer.remeasure` may run concurrently on distinct devices), `total`
// seeds in all. A remeasure that throws is a failed check.
Reverification reverify(Measurer& measurer, const Configuration& winner, const std::vector<int>& devices,
                        int total);

}  // namespace kernelblaster::tuner
