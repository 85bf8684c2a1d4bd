#include "tuner/build_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <thread>

using namespace kernelblaster::tuner;

namespace {

Configuration config(const std::string& id) {
  Configuration c;
  c.id = id;
  c.settings.push_back({"X", id, "parameter_tuning", false});
  return c;
}

struct CountingBuilder {
  std::mutex mutex;
  std::map<std::string, int> builds;
  std::map<std::string, std::string> dirs;
  BuildCache::Builder fn() {
    return [this](const Configuration& c, const std::string& dir) {
      std::lock_guard<std::mutex> lock(mutex);
      ++builds[c.id];
      dirs[c.id] = dir;
      CandidateBuild b;
      b.outcome.ok = true;
      b.hash = "hash-" + c.id;
      return b;
    };
  }
};

}  // namespace

TEST(BuildCache, EachConfigurationIsBuiltOnceWhoeverAsks) {
  CompilePool pool(2);
  CountingBuilder counter;
  {
    BuildCache cache(pool, "/w/candidates", counter.fn());
    auto first = cache.get(config("A"));
    auto again = cache.get(config("A"));
    auto other = cache.get(config("B"));
    EXPECT_EQ(first.get().hash, "hash-A");
    EXPECT_EQ(again.get().hash, "hash-A");
    EXPECT_EQ(other.get().hash, "hash-B");
    EXPECT_EQ(cache.get(config("A")).get().hash, "hash-A");
    EXPECT_EQ(cache.requested(), 2);
  }
  EXPECT_EQ(counter.builds["A"], 1);
  EXPECT_EQ(counter.builds["B"], 1);
  // Directories in order of first request.
  EXPECT_EQ(counter.dirs["A"], "/w/candidates/0");
  EXPECT_EQ(counter.dirs["B"], "/w/candidates/1");
}

TEST(BuildCache, ClosingSkipsBuildsNotStartedAndWaitsForRunningOnes) {
  CompilePool pool(1);
  std::promise<void> release, started;
  std::shared_future<void> gate = release.get_future().share();
  std::mutex mutex;
  std::map<std::string, int> built;
  BuildCache cache(pool, "/w", [&](const Configuration& c, const std::string&) {
    if (c.id == "A") {
      started.set_value();
      gate.wait();  // the one thread is busy until released
    }
    std::lock_guard<std::mutex> lock(mutex);
    ++built[c.id];
    CandidateBuild b;
    b.outcome.ok = true;
    return b;
  });
  auto a = cache.get(config("A"));
  started.get_future().wait();
  auto b = cache.get(config("B"));  // queued behind A, which holds the one thread
  cache.close();
  release.set_value();
  EXPECT_TRUE(a.get().outcome.ok);  // it was running: it finishes
  EXPECT_FALSE(b.get().outcome.ok);
  EXPECT_EQ(b.get().outcome.first_error, "not built: the run ended");
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(built.count("B"), 0u);
}

TEST(BuildCache, ABuilderThatThrowsIsAFailedBuildNotACrash) {
  CompilePool pool(1);
  BuildCache cache(pool, "/w", [](const Configuration&, const std::string&) -> CandidateBuild {
    throw std::runtime_error("cannot create /w/0");
  });
  CandidateBuild b = cache.get(config("A")).get();
  EXPECT_FALSE(b.outcome.ok);
  EXPECT_EQ(b.outcome.first_error, "not built: cannot create /w/0");
  EXPECT_EQ(b.outcome.failure, kernelblaster::Status::tool_error);  // the tool's failure, not the candidate's
}

// A build's time counts from when a pool thread starts it, not from when it
// was asked for: one queued behind another has not begun (search_loop's
// build_fits reads this).
TEST(BuildCache, ABuildQueuedBehindAnotherHasNotStartedItsTime) {
  CompilePool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  BuildCache cache(pool, "/w/candidates", [released](const Configuration&, const std::string&) {
    released.wait();
    CandidateBuild b;
    b.outcome.ok = true;
    return b;
  });
  // One thread: whichever the pool starts first (the newest ask,
  // compile_pool.h) holds it until released; the other waits in the queue.
  auto a = cache.get(config("A"));
  auto b = cache.get(config("B"));
  const auto started = [&](const char* id) { return cache.elapsed_s(config(id)) > 0; };
  for (int i = 0; i < 5000 && !started("A") && !started("B"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const char* running = started("A") ? "A" : "B";
  const char* queued = started("A") ? "B" : "A";
  EXPECT_GE(cache.elapsed_s(config(running)), 0.015);
  EXPECT_EQ(cache.elapsed_s(config(queued)), 0.0);
  EXPECT_EQ(cache.elapsed_s(config("never asked")), 0.0);
  release.set_value();
  a.wait();
  b.wait();
  EXPECT_GT(cache.elapsed_s(config(queued)), 0.0);
}

// What a pick waits for is the whole job: a compile the builder reports as
// quick, then slow work after it (the machine-code hash), is ready only when
// both are done. On an H200 (2026-11-30) the loop estimated builds by their
// compile alone and waited 3.4-3.9 s for picks it thought nearly built.
TEST(BuildCache, ABuildIsReadyWhenItsWholeJobIsDoneNotItsCompile) {
  CompilePool pool(1);
  BuildCache cache(pool, "/w", [](const Configuration&, const std::string&) {
    CandidateBuild b;
    b.outcome.ok = true;
    b.outcome.seconds = 0.01;  // the compile and link, as timed
    std::this_thread::sleep_for(std::chrono::milliseconds(150));  // the hash after them
    b.hash = "h";
    return b;
  });
  const CandidateBuild b = cache.get(config("A")).get();
  EXPECT_GE(b.ready_s, 0.15);
  EXPECT_LT(b.ready_s, 5.0);
  EXPECT_DOUBLE_EQ(b.outcome.seconds, 0.01);
}
