#include "tuner/compile_pool.h"

namespace kernelblaster::tuner {

CompilePool::CompilePool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  for (int i = 0; i < threads; ++i) m_threads.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_closing = true;
  }
  m_ready.notify_all();
  for (std::thread& t : m_threads) t.join();
}

CompilePool::Ticket CompilePool::enqueue(std::function<void()> run) {
  auto job = std::make_shared<Job>();
  job->run = std::move(run);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_jobs.push_front(job);
    job->at = m_jobs.begin();
    job->queued = true;
  }
  m_ready.notify_one();
  return job;
}

void CompilePool::bump(const Ticket& ticket) {
  if (!ticket) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  if (ticket->queued) m_jobs.splice(m_jobs.begin(), m_jobs, ticket->at);
}

void CompilePool::work() {
  for (;;) {
    Ticket job;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_ready.wait(lock, [this] { return m_closing || !m_jobs.empty(); });
      if (m_jobs.empty()) return;  // closing, nothing left
      job = m_jobs.front();
      m_jobs.pop_front();
      job->queued = false;
    }
    job->run();  // a packaged_task: an exception lands in its future
    job->run = nullptr;  // what it captured goes now, not with the last ticket
  }
}

}  // namespace kernelblaster::tuner
