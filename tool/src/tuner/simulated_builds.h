// The compile pool of a tuning run, on a virtual clock, for replay: a
// recording says what each configuration measures, not when its build is
// ready, and on a GPU the build decides what the loop measures next. With
// SGEMM_CUDA's kernel 12 on an H200 (2026-11-30) a candidate compiled for
// 10-13 s on 16 threads while a measurement took 2 s: the loop measured
// whatever of its earlier picks was built (SearchLoop's first_ready), and a
// replay that takes the policy's order as it is reached the band in about
// 20 evaluations on every seed where the GPU run had not in 121.
//
// The model is the pool's (compile_pool.h): `builders` threads, each build
// `build_s` seconds, the job asked for last starts first, asking again for
// a queued job moves it to the front, and a started build is never
// stopped. Times are seconds on the caller's virtual clock; the caller
// never asks at a time earlier than an earlier ask.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kernelblaster::tuner {

class SimulatedBuilds {
 public:
  SimulatedBuilds(int builders, double build_s);

  // `id` is wanted, asked for at `now`: queued (to the front when queued
  // already); nothing when it has started.
  void ask(const std::string& id, double now);
  // Whether `id`'s build has ended by `now`.
  bool built_by(const std::string& id, double now);
  // Seconds `id` has been compiling at `now`: 0 while queued or unasked.
  double elapsed(const std::string& id, double now);
  // When `id`'s build ends, asked at `now` if it was not: the builders
  // take the queue in order until it starts, with nothing asked meanwhile
  // (the caller waits for it).
  double ends(const std::string& id, double now);

 private:
  // Starts every build a builder takes up to `until` (inclusive), in the
  // order the builders free up; with `stop_at` set, stops once it started.
  void run_until(double until, const std::string* stop_at = nullptr);

  struct Job {
    std::string id;
    double asked = 0;
  };
  double m_build_s;
  std::vector<double> m_free_at;        // each builder's next free second
  std::vector<Job> m_queue;             // the front (next to start) last
  std::map<std::string, double> m_started;
};

}  // namespace kernelblaster::tuner
