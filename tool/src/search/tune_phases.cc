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

double PhaseClock::elapsed() const { return m_clock() - m_start; }

std::map<std::string, double> PhaseClock::seconds() const {
  std::map<std::string, double> out = m_done;
  out[m_phase] += m_clock() - m_phase_start;
  return out;
}

}  // namespace kernelblaster::search
