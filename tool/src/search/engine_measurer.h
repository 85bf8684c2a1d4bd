// Measures configurations with the engine: candidates are written and built
// on the CPU pool as soon as they are prepared, the reference is built once,
// and each measurement is a full `kernelblaster eval` of prebuilt programs
// on one GPU (the harness holds that GPU's lock while it runs).
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <string>

#include "eval/candidate_build.h"
#include "eval/evaluator.h"
#include "search/compile_pool.h"
#include "search/measurer.h"
#include "search/sass_hash.h"

namespace kernelblaster::search {

struct EngineTarget {
  std::string source;        // the original, absolute
  std::string source_text;
  std::string harness;       // absolute
  CompileSettings compile;   // arch resolved; include dirs absolute, the source's own directory among them
  std::string work_dir;      // scratch root of this run, absolute
  std::string lock_dir;
  int seeds = 3;
  double budget_ms = 300;
  double run_timeout_s = 60;
  double build_timeout_s = 300;
};

class EngineMeasurer final : public Measurer {
 public:
  // `hasher` may be null: no de-duplication.
  EngineMeasurer(Toolchain toolchain, GpuProbe& probe, CompilePool& pool, SassHasher* hasher, EngineTarget target);
  // Builds not started yet are skipped; running ones are waited for (their
  // jobs refer to this object).
  ~EngineMeasurer() override;

  // Builds the reference program (and hashes it). Returns false with the
  // compiler's first error line when the original does not build.
  bool build_reference(std::string* why);
  const std::string& reference_binary() const { return m_reference_binary; }

  void prepare(const Configuration& config) override;
  std::string machine_code(const Configuration& config) override;
  Measurement measure(const Configuration& config, int device) override;

  // A full evaluation of `config`'s built program with `seeds` fresh seeds:
  // the re-verification of the winner before it is written.
  EvalResult evaluate(const Configuration& config, int device, int seeds);
  // The candidate's source text and compile settings.
  std::string source_of(const Configuration& config) const;
  CompileSettings settings_of(const Configuration& config) const;

 private:
  struct Build {
    BuildOutcome outcome;
    std::string source_path;
    std::string hash;
  };
  std::shared_future<Build> build_of(const Configuration& config);
  EvalRequest request_for(const Build& build, int device) const;

  Toolchain m_toolchain;
  GpuProbe& m_probe;
  CompilePool& m_pool;
  SassHasher* m_hasher;
  EngineTarget m_target;
  std::string m_reference_binary;
  std::string m_reference_hash;
  std::mutex m_mutex;
  std::map<std::string, std::shared_future<Build>> m_builds;
  int m_next = 0;
  std::atomic<bool> m_closing{false};
};

// Geometric mean of the candidate's and the reference's medians over the
// timed sizes.
void medians_of(const EvalResult& r, double* candidate_us, double* reference_us);

}  // namespace kernelblaster::search
