// Replay: the search loop against a recorded run (simulation mode), so a
// policy can be tested and compared without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "policy/policy.h"
#include "tuner/config_space.h"
#include "tuner/measurer.h"
#include "tuner/run_log.h"
#include "tuner/search_loop.h"

namespace kernelblaster::tuner {

// Answers with the recorded result of each configuration; one the recording
// lacks is the result "not_recorded" (never a crash). Machine-code hashes
// are the recorded ones, so recorded duplicates are measured once again.
class ReplayMeasurer final : public Measurer {
 public:
  explicit ReplayMeasurer(const RunLog& log);
  std::string machine_code(const Configuration& config) override;
  CandidateResult measure(const Configuration& config, int device) override;

 private:
  std::map<std::string, EvaluationRecord> m_recorded;
  std::string m_original_hash;
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
ReplayReport replay(const RunLog& log, const kb::KnowledgeBase& kb,
                    const std::function<std::unique_ptr<policy::Policy>(bool* fell_back)>& make_policy,
                    const ReplayOptions& options);

std::string replay_report_to_json(const ReplayReport& report);
// Each seed's selections in order (id, status, speedup, accepted): what a
// policy did, for finding where a seed stalled (`policy replay --trace`).
std::string replay_trace_to_json(const ReplayReport& report);
std::string replay_report_to_text(const ReplayReport& report);

// The run log a replayed seed would have written (for KB learning).
RunLog replayed_log(const RunLog& recorded, const SeedRun& run);

}  // namespace kernelblaster::tuner
