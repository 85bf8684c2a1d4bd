#include "search/tune_phases.h"

namespace kernelblaster::search {

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

}  // namespace kernelblaster::search
