#include "tuner/simulated_builds.h"

#include <algorithm>
#include <limits>

namespace kernelblaster::tuner {

SimulatedBuilds::SimulatedBuilds(int builders, double build_s)
    : m_build_s(build_s), m_free_at(static_cast<std::size_t>(std::max(1, builders)), 0.0) {}

void SimulatedBuilds::ask(const std::string& id, double now) {
  run_until(now);
  if (m_started.count(id)) return;
  auto it = std::find_if(m_queue.begin(), m_queue.end(), [&](const Job& j) { return j.id == id; });
  if (it != m_queue.end()) m_queue.erase(it);
  m_queue.push_back({id, now});
}

bool SimulatedBuilds::built_by(const std::string& id, double now) {
  run_until(now);
  auto it = m_started.find(id);
  return it != m_started.end() && it->second + m_build_s <= now;
}

double SimulatedBuilds::elapsed(const std::string& id, double now) {
  run_until(now);
  auto it = m_started.find(id);
  return it == m_started.end() ? 0.0 : std::min(m_build_s, now - it->second);
}

double SimulatedBuilds::ends(const std::string& id, double now) {
  if (!m_started.count(id)) {
    ask(id, now);
    run_until(std::numeric_limits<double>::infinity(), &id);
  }
  return m_started.at(id) + m_build_s;
}

void SimulatedBuilds::run_until(double until, const std::string* stop_at) {
  while (!m_queue.empty()) {
    auto builder = std::min_element(m_free_at.begin(), m_free_at.end());
    // A builder idle before the newest ask starts it when it is asked:
    // everything queued was asked by then, and the newest goes first.
    const double start = std::max(*builder, m_queue.back().asked);
    if (start > until) return;
    const Job job = m_queue.back();
    m_queue.pop_back();
    m_started[job.id] = start;
    *builder = start + m_build_s;
    if (stop_at && job.id == *stop_at) return;
  }
}

}  // namespace kernelblaster::tuner
