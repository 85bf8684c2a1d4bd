// A fixed pool of threads that runs compile jobs on the CPU while the GPUs
// measure. The job asked for last starts first: a search's latest picks
// are the ones it will measure next, and a build queued for picks it has
// since passed over must not hold them up (SGEMM_CUDA's kernel 10 on an
// H200: the model's picks waited 20-40 s behind 16 stale prefetches of
// 10 s each). Asking again for a job still queued moves it to the front.
// The destructor finishes every job already submitted.
#pragma once

#include <condition_variable>
#include <list>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kernelblaster::tuner {

class CompilePool {
 public:
  // threads <= 0: std::thread::hardware_concurrency().
  explicit CompilePool(int threads = 0);
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // A job in the queue, to ask for again (bump); nothing once it started.
  struct Job {
    std::function<void()> run;
    std::list<std::shared_ptr<Job>>::iterator at;
    bool queued = false;
  };
  using Ticket = std::shared_ptr<Job>;

  template <class F>
  auto submit(F f, Ticket* ticket = nullptr) -> std::shared_future<decltype(f())> {
    auto task = std::make_shared<std::packaged_task<decltype(f())()>>(std::move(f));
    std::shared_future<decltype(f())> result = task->get_future().share();
    Ticket t = enqueue([task] { (*task)(); });
    if (ticket) *ticket = std::move(t);
    return result;
  }
  // Moves the job to the front of the queue when it has not started.
  void bump(const Ticket& ticket);
  int threads() const { return static_cast<int>(m_threads.size()); }

 private:
  Ticket enqueue(std::function<void()> job);
  void work();

  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::list<Ticket> m_jobs;  // the next to start first
  bool m_closing = false;
  std::vector<std::thread> m_threads;
};

}  // namespace kernelblaster::tuner
