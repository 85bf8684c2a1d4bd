// The seam between the search loop and what measures a configuration: the
// engine on real GPUs (engine_measurer.h) or a recorded run (replay.h).
#pragma once

#include <map>
#include <string>

#include "judge/candidate_result.h"
#include "tuner/config_space.h"

namespace kernelblaster::tuner {

class Measurer {
 public:
  virtual ~Measurer() = default;
  // A hint that `config` will probably be measured soon: start building it.
  // Returns at once.
  virtual void prepare(const Configuration& config) { (void)config; }
  // Whether measuring `config` now would start at once, its build done. A
  // measurer with nothing to build (a recorded run) is always ready.
  virtual bool ready(const Configuration& config) {
    (void)config;
    return true;
  }
  // Seconds since the build of `config` started compiling: 0 while it is
  // queued, never asked for, or nothing is built.
  virtual double build_elapsed_s(const Configuration& config) {
    (void)config;
    return 0;
  }
  // A hash of the configuration's machine code (SASS), waiting for its build;
  // empty when unknown (no hasher, or it does not compile). Two
  // configurations with one non-empty hash are measured once.
  virtual std::string machine_code(const Configuration& config) = 0;
  // Measures `config` on `device`. Called from several threads at once, but
  // never twice at once for one device. Never throws for a bad candidate.
  virtual CandidateResult measure(const Configuration& config, int device) = 0;
  // A fresh look at `config` on `device` before it is believed: `seeds`
  // new random seeds, none the search used (re-verification of the winner).
  // Same threading contract as measure(). A measurer that cannot look again
  // (a recorded run) says so as a failed result.
  virtual CandidateResult remeasure(const Configuration& config, int device, int seeds) {
    (void)config, (void)device, (void)seeds;
    CandidateResult m;
    m.status = Status::tool_error;
    m.detail = "this measurer cannot measure again";
    return m;
  }
};

}  // namespace kernelblaster::tuner
