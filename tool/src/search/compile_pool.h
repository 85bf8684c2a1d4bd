// A fixed pool of threads that runs compile jobs on the CPU while the GPUs
// measure. Jobs run in submission order; the destructor finishes every job
// already submitted.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kernelblaster::search {

class CompilePool {
 public:
  // threads <= 0: std::thread::hardware_concurrency().
  explicit CompilePool(int threads = 0);
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  template <class F>
  auto submit(F f) -> std::shared_future<decltype(f())> {
    auto task = std::make_shared<std::packaged_task<decltype(f())()>>(std::move(f));
    std::shared_future<decltype(f())> result = task->get_future().share();
    enqueue([task] { (*task)(); });
    return result;
  }
  int threads() const { return static_cast<int>(m_threads.size()); }

 private:
  void enqueue(std::function<void()> job);
  void work();

  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<std::function<void()>> m_jobs;
  bool m_closing = false;
  std::vector<std::thread> m_threads;
};

}  // namespace kernelblaster::search
