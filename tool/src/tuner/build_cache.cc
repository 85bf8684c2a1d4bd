#include "tuner/build_cache.h"

#include <chrono>

#include "common/clock.h"

namespace kernelblaster::tuner {

BuildCache::BuildCache(CompilePool& pool, std::string root, Builder build)
    : m_pool(pool), m_root(std::move(root)), m_build(std::move(build)) {}

BuildCache::~BuildCache() {
  close();
  std::lock_guard<std::mutex> lock(m_mutex);
  for (auto& [id, entry] : m_builds) entry.build.wait();
}

std::shared_future<CandidateBuild> BuildCache::get(const Configuration& config) {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_builds.find(config.id);
  if (it != m_builds.end()) {
    m_pool.bump(it->second.ticket);
    return it->second.build;
  }
  std::string dir = m_root + "/" + std::to_string(m_builds.size());
  CompilePool::Ticket ticket;
  auto started = std::make_shared<std::atomic<std::chrono::steady_clock::time_point>>();
  auto future = m_pool.submit([this, config, dir, started] {
    const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    started->store(start);
    CandidateBuild b;
    if (m_closing) {
      b.outcome = build_not_attempted("the run ended");
      return b;
    }
    try {
      b = m_build(config, dir);
    } catch (const std::exception& x) {
      // An unwritable scratch directory is not the candidate's fault, but it
      // still must not take the run down: the build failed, say why.
      b.outcome = build_not_attempted(x.what());
    }
    b.ready_s = seconds_since(start);
    return b;
  }, &ticket);
  m_builds.emplace(config.id, Entry{future, std::move(ticket), std::move(started)});
  return future;
}

bool BuildCache::done(const Configuration& config) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_builds.find(config.id);
  return it != m_builds.end() && it->second.build.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

double BuildCache::elapsed_s(const Configuration& config) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_builds.find(config.id);
  if (it == m_builds.end()) return 0;
  const std::chrono::steady_clock::time_point started = it->second.started->load();
  return started == std::chrono::steady_clock::time_point{} ? 0.0 : seconds_since(started);
}

int BuildCache::requested() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return static_cast<int>(m_builds.size());
}

}  // namespace kernelblaster::tuner
