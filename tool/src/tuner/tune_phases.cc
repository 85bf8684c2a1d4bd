#include "tuner/tune_phases.h"

#include <algorithm>

namespace kernelblaster::tuner {

PhaseClock::PhaseClock(std::function<double()> clock, std::string first)
    : m_clock(std::move(clock)), m_phase(std::move(first)) {
  m_start = m_phase_start = m_clock();
}

void PhaseClock::next(const std::string& name) {
  double now = m_clock();
  m_done[m_phase] += now - m_phase_start;
  m_phase = name;
  m_phase_start = now;
}

double PhaseClock::elapsed() const { return read().total; }

std::map<std::string, double> PhaseClock::seconds() const { return read().phases; }

PhaseClock::Reading PhaseClock::read() const {
  const double now = m_clock();
  Reading r{now - m_start, m_done};
  r.phases[m_phase] += now - m_phase_start;
  return r;
}

double search_budget(double budget_s, const PhaseClock::Reading& so_far) {
  if (budget_s <= 0) return budget_s;
  return std::max(0.1 * budget_s, budget_s - so_far.total);
}

double first_measurement_estimate(const PhaseClock::Reading& so_far) {
  double s = 0;
  for (const char* phase : {"reference_build", "profile"})
    if (auto it = so_far.phases.find(phase); it != so_far.phases.end()) s += it->second;
  return s;
}

}  // namespace kernelblaster::tuner
