// Measures configurations with the engine: candidates are written and built
// on the CPU pool as soon as they are prepared (once each: build_cache.h),
// the reference is built once, and each measurement is a full
// `kernelblaster eval` of prebuilt programs on one GPU (the harness holds
// that GPU's lock while it runs). The search's measurements share one seed
// set and the original's recent run (judge/reference_runs.h); a remeasure
// takes fresh seeds and runs the original beside the candidate.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "judge/candidate_build.h"
#include "judge/engine_target.h"
#include "judge/evaluator.h"
#include "tuner/build_cache.h"
#include "tuner/compile_pool.h"
#include "tuner/launcher_focus.h"
#include "tuner/measurer.h"
#include "tuner/sass_hash.h"

namespace kernelblaster::tuner {


class EngineMeasurer final : public Measurer {
 public:
  // `hasher` may be null: no de-duplication.
  EngineMeasurer(Toolchain toolchain, GpuProbe& probe, CompilePool& pool, SassHasher* hasher, EngineTarget target);
  // Waits for the jobs it started that are running (they use this object
  // and the hasher); builds not started are skipped.
  ~EngineMeasurer() override;

  // Builds the reference program; its hash follows on the pool, off the
  // caller's path. Returns false with the compiler's first error line when
  // the original does not build. Candidates may be prepared before it.
  bool build_reference(std::string* why);
  const std::string& reference_binary() const { return m_reference_binary; }
  // Judge a configuration that changes one group alone by that group's
  // launchers (launcher_focus.h): the candidate and the original are both
  // built to run only those, the original once per group, on the pool.
  // Set before the first configuration is prepared.
  void focus(LauncherFocus f) { m_focus = std::move(f); }
  const LauncherFocus& focus() const { return m_focus; }
  const EngineTarget& target() const { return m_target; }
  // The winner's fresh look (remeasure) runs its program once more under
  // compute-sanitizer's memcheck (EvalRequest::memcheck); set before it.
  void memcheck(EvalRequest::Memcheck m) { m_memcheck = std::move(m); }

  void prepare(const Configuration& config) override;
  bool ready(const Configuration& config) override;
  double build_elapsed_s(const Configuration& config) override;
  std::string machine_code(const Configuration& config) override;
  CandidateResult measure(const Configuration& config, int device) override;
  CandidateResult remeasure(const Configuration& config, int device, int seeds) override;

  // The same on the whole harness, every launcher running, whatever group
  // `config` changes: what a composed winner is checked with.
  // Starts the build remeasure_whole() will take (a composed winner, expected).
  void prepare_whole(const Configuration& config);
  CandidateResult remeasure_whole(const Configuration& config, int device, int seeds);
  // Each of the harness's first `launchers` launchers alone (built with
  // its mask bit), `config` against the original with `seeds` fresh seeds:
  // with its data left in the L2 between calls, as a program that calls one
  // kernel back to back sees it (a tile best from DRAM may not be best
  // from the L2). The builds run at once; the evaluations one by one.
  std::vector<CandidateResult> remeasure_each_alone(const Configuration& config, int launchers, int device,
                                                    int seeds);
  // `text`, a source derived from `config`'s (tuner/shape_guard.h), built
  // on the pool with `config`'s settings for `config`'s group's launchers,
  // or with `whole` for the whole harness; then judged as remeasure judges.
  std::shared_future<CandidateBuild> build_text(const std::string& text, const Configuration& config, bool whole);
  // `as_written`: the sizes where that source runs the original's code (a
  // guarded source's): the validation ones among them are checked, not timed.
  CandidateResult remeasure_built(const std::shared_future<CandidateBuild>& build, const Configuration& config,
                                  bool whole, int device, int seeds, const std::vector<std::string>& as_written = {});
  // The original and `config`'s source, each built with another harness
  // (`harness_text`: the boundary shapes alone, boundary_shapes.h) on the
  // pool, every launcher running.
  struct OtherHarness {
    std::string harness;  // its path
    std::shared_future<CandidateBuild> original, candidate;
  };
  OtherHarness build_with_harness(const std::string& harness_text, const Configuration& config);
  // The candidate (with `original_twice`, the original) against the
  // original on those builds: correctness only, every size, `seeds` fresh
  // seeds.
  EvalResult check_with_harness(const OtherHarness& builds, bool original_twice, int device, int seeds);
  // The candidate's source text and compile settings.
  std::string source_of(const Configuration& config) const;
  CompileSettings settings_of(const Configuration& config) const;
  // Candidates whose build was requested (prepared, speculated or measured).
  int builds_requested() const { return m_builds.requested(); }

 private:
  CandidateBuild build(const Configuration& config, const std::string& dir, std::uint64_t mask,
                       const std::string* text = nullptr, const std::string* harness = nullptr);
  // `build` on the pool, a failure to start as a failed build; joined on destruction.
  std::shared_future<CandidateBuild> build_on_pool(const Configuration& config, const std::string& dir,
                                                   std::uint64_t mask, std::optional<std::string> text,
                                                   std::optional<std::string> harness);
  // The original built for the launchers of `mask` (0: the whole harness),
  // started on first request; failed with the compiler's first line.
  std::shared_future<BuildOutcome> reference_for(std::uint64_t mask);
  EvalResult evaluate_build(const CandidateBuild& b, std::uint64_t mask, int device, int seeds,
                            bool memcheck = false, const std::vector<std::string>& untimed = {});

  Toolchain m_toolchain;
  // The original's builds kept across runs of one content key (EngineTarget::build_store).
  BuildStore m_store;
  // The harness compiled once per set of options, each candidate its source's compile and a link.
  HarnessObjects m_harness_objects;
  GpuProbe& m_probe;
  SassHasher* m_hasher;
  EngineTarget m_target;
  std::string m_reference_binary;
  // The search's seeds (one random base per run) and the original's runs on
  // them, reused while recent (judge/reference_runs.h).
  std::uint64_t m_search_seed;
  std::shared_ptr<ReferenceRuns> m_reference_runs;
  std::shared_future<std::string> m_reference_hash;
  LauncherFocus m_focus;
  EvalRequest::Memcheck m_memcheck;
  std::mutex m_references_mutex;
  std::map<std::uint64_t, std::shared_future<BuildOutcome>> m_focused_references;
  CompilePool& m_pool;
  // Last: destroyed first, so builds still running finish while everything
  // they use is alive. m_builds: each configuration for its own group's
  // launchers; m_whole_builds: on the whole harness (composed winners).
  BuildCache m_builds;
  BuildCache m_whole_builds;
  int m_text_builds = 0;  // directories of build_text and build_with_harness: guarded-0, other-harness-1, ...
  std::vector<std::shared_future<CandidateBuild>> m_text_jobs;  // build_on_pool's, waited for on destruction
};

}  // namespace kernelblaster::tuner
