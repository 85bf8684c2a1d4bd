// Test doubles for the search loop: a measurer answering from a table, a
// clock that measurements advance, a policy that takes actions in order, and
// the small space the loop's tests search.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "policy/policy.h"
#include "tuner/config_space.h"
#include "tuner/directives.h"
#include "tuner/measurer.h"

namespace kernelblaster::tuner::testing {

// BLOCK_SIZE in {64,128,256*,512,1024} and fast math on/off: 9 candidates,
// in enumeration order.
// Two tunables and a constraint: BLOCK_SIZE in {64..1024}, 256 written;
// ITEMS in {1,2,4,8}, 1 written; BLOCK_SIZE * ITEMS <= 2048.
inline constexpr const char* kTwoTunables = R"(// kernelblaster: tunable BLOCK_SIZE 64 128 256 512 1024
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
// kernelblaster: tunable ITEMS 1 2 4 8
#ifndef ITEMS
#define ITEMS 1
#endif
// kernelblaster: constraint BLOCK_SIZE * ITEMS <= 2048
)";

inline ConfigSpace small_space() {
  SpaceDecl d = parse_directives(
      "// kernelblaster: tunable BLOCK_SIZE 64 128 256 512 1024\n#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 256\n#endif\n"
      "// kernelblaster: flags fast_math\n",
      "k.cu", "sm_90");
  return enumerate_space(d, d.flags);
}

// Two groups of launch sites, each its own part of the space: A in {1*,2,3}
// (group g1) and B in {1*,2,3,4} (group g2); with `shared`, an ungrouped C
// in {1*,2} that varies in both. In enumeration order: A=2, A=3, B=2, B=3,
// B=4 (and, with C, the mixes).
inline ConfigSpace two_group_space(bool shared = false) {
  SpaceDecl d;
  d.tunables.push_back({"A", {"1", "2", "3"}, "1", "parameter_tuning", "t", "g1"});
  d.tunables.push_back({"B", {"1", "2", "3", "4"}, "1", "parameter_tuning", "t", "g2"});
  if (shared) d.tunables.push_back({"C", {"1", "2"}, "1", "parameter_tuning", "t", ""});
  return enumerate_space(d, {});
}

struct FakeClock {
  std::atomic<long long> millis{0};
  double now() const { return static_cast<double>(millis.load()) / 1000.0; }
};

class FakeMeasurer final : public Measurer {
 public:
  std::map<std::string, CandidateResult> results;  // by configuration id; missing: ok 1.0
  std::map<std::string, std::string> hashes;   // by configuration id ("default": the original)
  std::set<std::string> building;              // ids whose build is not done (ready() says no)
  FakeClock* clock = nullptr;
  long long millis_per_measurement = 0;
  int sleep_ms = 0;

  std::mutex mutex;
  std::vector<std::string> measured;           // ids, in order of measure() calls
  std::map<int, int> active, per_device;       // device → running now / measured in total
  int max_active_total = 0;
  bool overlap_on_one_device = false;
  std::atomic<int> running{0};

  bool ready(const Configuration& c) override { return !building.count(c.id); }
  std::string machine_code(const Configuration& c) override {
    auto it = hashes.find(c.id);
    return it == hashes.end() ? "" : it->second;
  }
  CandidateResult measure(const Configuration& c, int device) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      measured.push_back(c.id);
      if (++active[device] > 1) overlap_on_one_device = true;
      ++per_device[device];
      max_active_total = std::max(max_active_total, ++running);
    }
    if (sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    if (clock) clock->millis += millis_per_measurement;
    CandidateResult m;
    m.speedup = 1.0;
    if (auto it = results.find(c.id); it != results.end()) m = it->second;
    std::lock_guard<std::mutex> lock(mutex);
    --active[device];
    --running;
    return m;
  }
};

inline CandidateResult ok(double speedup) {
  CandidateResult m;
  m.speedup = speedup;
  m.median_us = 100.0 / speedup;
  m.reference_median_us = 100.0;
  return m;
}
// Every configuration of `space` measures ok at 1.0 after a build of
// `compile_s` seconds (what the loop's mean build time is made of).
inline void build_each_for(FakeMeasurer& m, const ConfigSpace& space, double compile_s) {
  for (const Configuration& c : space.configs) {
    CandidateResult r = ok(1.0);
    r.compile_s = compile_s;
    m.results[c.id] = r;
  }
}
inline CandidateResult failed(Status status, const std::string& detail = "") {
  CandidateResult m;
  m.status = status;
  m.detail = detail;
  return m;
}

// Takes the actions in the order the context lists them; remembers contexts.
class InOrderPolicy final : public policy::Policy {
 public:
  std::vector<policy::Context> seen;
  std::set<std::string> refuse;  // accept() says no to these
  int stop_after = -1;           // stop() says yes once this many results are in
  std::string name() const override { return "in-order"; }
  std::vector<std::string> select(const policy::Context& ctx) override {
    seen.push_back(ctx);
    std::vector<std::string> ids;
    for (const auto& a : ctx.actions) ids.push_back(a.id);
    return ids;
  }
  std::optional<bool> accept(const policy::Context&, const policy::HistoryEntry& r) override {
    if (refuse.count(r.action_id)) return false;
    return std::nullopt;
  }
  std::optional<bool> stop(const policy::Context& ctx) override {
    if (stop_after >= 0 && static_cast<int>(ctx.history.size()) >= stop_after) return true;
    return std::nullopt;
  }
};

}  // namespace kernelblaster::tuner::testing
