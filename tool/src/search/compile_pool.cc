#include "search/compile_pool.h"

namespace kernelblaster::search {

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

void CompilePool::enqueue(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_jobs.push_back(std::move(job));
  }
  m_ready.notify_one();
}

void CompilePool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_ready.wait(lock, [this] { return m_closing || !m_jobs.empty(); });
      if (m_jobs.empty()) return;  // closing, nothing left
      job = std::move(m_jobs.front());
      m_jobs.pop_front();
    }
    job();  // a packaged_task: an exception lands in its future
  }
}

}  // namespace kernelblaster::search
