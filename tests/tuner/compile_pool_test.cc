// The compile pool starts the job asked for last first, and a job asked for
// again while queued moves to the front (tuner/compile_pool.h).
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "tuner/compile_pool.h"

namespace kernelblaster::tuner {
namespace {

struct Recorder {
  std::mutex mutex;
  std::vector<std::string> order;
  std::function<int()> job(const std::string& name) {
    return [this, name] {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(name);
      return 0;
    };
  }
};

TEST(CompilePool, TheJobAskedForLastStartsFirst) {
  Recorder r;
  std::promise<void> release, started;
  std::shared_future<void> gate = release.get_future().share();
  {
    CompilePool pool(1);
    // Holds the one thread until every other job is queued.
    pool.submit([gate, &started] {
      started.set_value();
      gate.wait();
      return 0;
    });
    started.get_future().wait();
    CompilePool::Ticket a, b;
    pool.submit(r.job("stale"), &a);
    pool.submit(r.job("older pick"), &b);
    pool.submit(r.job("newest pick"));
    pool.bump(a);  // asked for again: the measurement needs it now
    release.set_value();
  }  // the destructor finishes every job
  EXPECT_EQ(r.order, (std::vector<std::string>{"stale", "newest pick", "older pick"}));
}

TEST(CompilePool, BumpingAJobThatStartedChangesNothing) {
  Recorder r;
  CompilePool::Ticket done;
  {
    CompilePool pool(1);
    pool.submit(r.job("first"), &done).wait();
    pool.bump(done);
    pool.bump(nullptr);
    pool.submit(r.job("second")).wait();
  }
  EXPECT_EQ(r.order, (std::vector<std::string>{"first", "second"}));
}

}  // namespace
}  // namespace kernelblaster::tuner
