// The builds of a run's candidates, one per configuration: whoever asks
// first (a speculative compile before the search starts, the loop's
// prefetch, a measurement) starts it on the CPU pool; everyone after gets
// the same future. So a candidate is never compiled twice, and a build
// started on a guess the search never follows is simply left unused.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "judge/candidate_build.h"
#include "tuner/compile_pool.h"
#include "tuner/config_space.h"

namespace kernelblaster::tuner {

struct CandidateBuild {
  BuildOutcome outcome;
  std::string source_path;  // the candidate's source as written for the build
  std::string hash;         // of its machine code; empty: unknown
  // From a pool thread's start to the program ready: the compile and link
  // (outcome.seconds), any wait for the harness's shared object, the
  // machine-code hash. What a pick whose build has started still waits for
  // is this less BuildCache::elapsed_s: on an H200 (2026-11-30) the
  // examples' builds were ready 3.4-3.9 s after their picks, with
  // outcome.seconds 2.0-2.4 s, and the loop, misled, waited for them.
  double ready_s = 0;
};

class BuildCache {
 public:
  // Builds `config` in `dir` (a fresh directory per configuration, not yet
  // created). Runs on a pool thread; must not throw for a bad candidate.
  using Builder = std::function<CandidateBuild(const Configuration& config, const std::string& dir)>;

  // Build directories are `root`/0, `root`/1, ... in order of first request.
  BuildCache(CompilePool& pool, std::string root, Builder build);
  // Builds not started yet are skipped; running ones are waited for (their
  // jobs refer to this object).
  ~BuildCache();
  BuildCache(const BuildCache&) = delete;
  BuildCache& operator=(const BuildCache&) = delete;

  // The build of `config`, queued on the first request; a later request
  // of a build still queued moves it to the front (compile_pool.h).
  std::shared_future<CandidateBuild> get(const Configuration& config);
  // From now on, builds that have not started are skipped (their result
  // says so); the run is ending.
  void close() { m_closing = true; }
  // Whether the build of `config` was requested and has ended (built or
  // failed): a measurement of it would not wait.
  bool done(const Configuration& config) const;
  // Seconds since the build of `config` started on a pool thread: 0 while
  // it waits in the pool's queue, or was never requested.
  double elapsed_s(const Configuration& config) const;
  // Configurations whose build was requested so far.
  int requested() const;

 private:
  CompilePool& m_pool;
  std::string m_root;
  Builder m_build;
  mutable std::mutex m_mutex;
  struct Entry {
    std::shared_future<CandidateBuild> build;
    CompilePool::Ticket ticket;
    // When its job started; the clock's epoch until then.
    std::shared_ptr<std::atomic<std::chrono::steady_clock::time_point>> started;
  };
  std::map<std::string, Entry> m_builds;
  std::atomic<bool> m_closing{false};
};

}  // namespace kernelblaster::tuner
