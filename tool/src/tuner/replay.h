// Replay: the search loop against a recorded run (simulation mode), so a
// policy can be tested and compared without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "policy/policy.h"
#include "tuner/config_space.h"
#include "tuner/measurer.h"
#include "tuner/run_log.h"
#include "tuner/search_loop.h"
#include "tuner/simulated_builds.h"

namespace kernelblaster::tuner {

// What a recording lacks of a tuning run on a GPU. Its pace, played on a
// virtual clock: the compile pool's threads, a candidate's build and a
// measurement, in seconds (builders <= 0: every configuration built at
// once, the loop measuring the policy's picks in its order). And noise.
struct ReplayConditions {
  int builders = 0;
  double build_s = 0;
  double measure_s = 0;
  // Each verified measurement's speedup times exp(noise * N(0, 1)), drawn
  // from the run's seed: a GPU's run-to-run spread (about 0.01 on the
  // H200's SGEMM timings), which a recording's single figure lacks.
  double noise = 0;
  std::uint64_t seed = 0;
  // The search's seconds on the virtual clock (with builders): no
  // measurement starts that would end past them, as `tune`'s loop does with
  // what a run's setup, the original's build and profile left; 0: none.
  double budget_s = 0;
};

// Answers with the recorded result of each configuration; one the recording
// lacks is the result "not_recorded" (never a crash). Machine-code hashes
// are the recorded ones, so recorded duplicates are measured once again.
// With builders, builds take their time on SimulatedBuilds and now() is the
// virtual clock: the loop then measures what is built, as on a GPU.
class ReplayMeasurer final : public Measurer {
 public:
  explicit ReplayMeasurer(const RunLog& log, const ReplayConditions& conditions = {});
  void prepare(const Configuration& config) override;
  bool ready(const Configuration& config) override;
  double build_elapsed_s(const Configuration& config) override;
  std::string machine_code(const Configuration& config) override;
  CandidateResult measure(const Configuration& config, int device) override;
  // The virtual clock (0 without builders); moves on by waits and measurements.
  double now() const;
  void wait_until(double t);

 private:
  std::map<std::string, EvaluationRecord> m_recorded;
  std::string m_original_hash;
  ReplayConditions m_conditions;
  std::unique_ptr<SimulatedBuilds> m_builds;  // with builders
  double m_now = 0;
  std::mt19937_64 m_draws;  // the noise's
  mutable std::mutex m_mutex;
};

// The configurations of a recording (the original excluded), in recorded order.
ConfigSpace recorded_space(const RunLog& log);

// The best verified speedup in the recording (1.0 when nothing beat the original).
double recorded_best(const RunLog& log);

struct ReplayOptions {
  int seeds = 10;
  std::uint64_t first_seed = 1;
  int max_evals = 0;     // 0: until the policy stops or the space is exhausted
  double band = 0.05;    // "within 5% of the best": speedup >= (1 - band) * recorded best
  // With builders: builds and measurements on a virtual clock, the loop's
  // prefetch as `tune` sets it for that pool, and the first builds started
  // on a guess (speculation.h) while the original is built and measured.
  // Without, the policy's order as it is. The noise's seed is each run's.
  ReplayConditions conditions;
};

struct SeedRun {
  std::uint64_t seed = 0;
  int evaluations = 0;        // configurations selected (duplicates included)
  int to_band = -1;           // selections until the best accepted was within the band; -1: never
  double best = 1.0;          // best accepted speedup reached
  // Where the space is searched part by part (search_loop.h): each part's
  // best accepted speedup, by Configuration::part; else empty.
  std::map<std::string, double> best_by_part;
  int duplicates = 0;
  bool fell_back = false;
  LoopOutcome outcome;  // outcome.stop: why the run stopped
};

struct ReplayReport {
  std::string kernel;
  std::string policy;
  std::size_t space_size = 0;
  double recorded_best = 1.0;
  double band = 0.05;
  std::vector<SeedRun> runs;
  // Over seeds; a seed that never reached the band counts the whole space.
  double mean_to_band = 0;
  double mean_fraction_to_band = 0;   // mean_to_band / space_size
  double mean_best = 0;
  double mean_fraction_evaluated = 0; // evaluations / space_size
  int reached = 0;                    // seeds that reached the band
  bool fell_back = false;
  // Searched part by part: each part's recorded best, and the seeds whose
  // best in every part came within the band of that part's.
  std::map<std::string, double> recorded_best_by_part;
  int reached_in_every_part = 0;
};

// Runs the loop once per seed with a fresh policy from `make_policy` (so a
// seed's run never depends on an earlier seed) and KB estimates from `kb`.
using MakePolicy = std::function<std::unique_ptr<policy::Policy>(bool* fell_back)>;
ReplayReport replay(const RunLog& log, const kb::KnowledgeBase& kb, const MakePolicy& make_policy,
                    const ReplayOptions& options);

std::string replay_report_to_json(const ReplayReport& report);
// Each seed's selections in order (id, status, speedup, accepted): what a
// policy did, for finding where a seed stalled (`policy replay --trace`).
std::string replay_trace_to_json(const ReplayReport& report);
std::string replay_report_to_text(const ReplayReport& report);

// The run log a replayed seed would have written (for KB learning).
RunLog replayed_log(const RunLog& recorded, const SeedRun& run);

}  // namespace kernelblaster::tuner
