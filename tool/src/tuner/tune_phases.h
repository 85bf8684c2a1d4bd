// Where a tuning run's wall time goes, so a measurement can say which part
// did not shrink with more GPUs. Phases are consecutive: each runs from the
// end of the one before, so they add up to the run's seconds. A tuning run
// names them "setup" (the space, the KB, the guesses' builds started),
// "reference_build", "profile" (the original's, for its state), "loop" (the
// search), "reverify" (the winner's fresh look), "guard" (its launchers kept
// as written where it was slower: guarded_winner.h) and "finish" (the KB learns).
#pragma once

#include <functional>
#include <map>
#include <string>

namespace kernelblaster::tuner {

class PhaseClock {
 public:
  // `clock`: seconds on any monotonic scale. The first phase starts now.
  PhaseClock(std::function<double()> clock, std::string first);
  // Ends the current phase and starts `name`.
  void next(const std::string& name);
  // Seconds since the first phase began.
  double elapsed() const;
  // Every phase that ran, the current one up to now; a phase entered twice
  // adds up.
  std::map<std::string, double> seconds() const;
  // Both, from one reading of the clock, so the phases add up to the total
  // (read apart, the later reading runs ahead of the earlier one).
  struct Reading {
    double total = 0;
    std::map<std::string, double> phases;
  };
  Reading read() const;

 private:
  std::function<double()> m_clock;
  double m_start = 0;
  double m_phase_start = 0;
  std::string m_phase;
  std::map<std::string, double> m_done;
};

// What the search may spend of a run's --budget (its whole wall time): what
// the phases so far (setup, the original's build and profile) left. The
// loop keeps the winner's checks' time itself, at its own pace, once there
// is a winner (LoopOptions::finish_paces); this once took 1.5 times the
// profiled run off as well, and the examples' 30-s runs ended at 24 s
// (an H200, 2026-11-29). Never under a tenth of the budget, so a slow
// start still searches a little; <= 0 stays (no deadline).
double search_budget(double budget_s, const PhaseClock::Reading& so_far);

// What one measurement is expected to take before any has ended: the
// original's build and its profiled run (a candidate is built and run the
// same way). 0 when neither phase ran.
double first_measurement_estimate(const PhaseClock::Reading& so_far);

}  // namespace kernelblaster::tuner
