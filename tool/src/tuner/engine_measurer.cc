#include "tuner/engine_measurer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <sstream>

#include "common/file_util.h"
#include "common/launcher_mask.h"
#include "judge/plan_builder.h"
#include "tuner/candidate_source.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {

EngineMeasurer::EngineMeasurer(Toolchain toolchain, GpuProbe& probe, CompilePool& pool, SassHasher* hasher,
                               EngineTarget target)
    : m_toolchain(std::move(toolchain)),
      m_store(target.build_store, target.work_dir),
      m_harness_objects(target.work_dir + "/harness-objects", &m_store),
      m_probe(probe),
      m_hasher(hasher),
      m_target(std::move(target)),
      m_search_seed(make_seeds(1, 0)[0]),
      m_reference_runs(std::make_shared<ReferenceRuns>(m_target.work_dir + "/reference-runs")), m_pool(pool),
      m_builds(pool, m_target.work_dir + "/candidates",
               [this](const Configuration& c, const std::string& dir) { return build(c, dir, m_focus.mask(c)); }),
      m_whole_builds(pool, m_target.work_dir + "/whole",
                     [this](const Configuration& c, const std::string& dir) { return build(c, dir, 0); }) {}

EngineMeasurer::~EngineMeasurer() {
  m_builds.close();  // the reference's hash may wait in the pool behind builds nobody needs now
  m_whole_builds.close();
  if (m_reference_hash.valid()) m_reference_hash.wait();
  for (const auto& job : m_text_jobs) job.wait();
  std::lock_guard<std::mutex> lock(m_references_mutex);
  for (auto& [mask, future] : m_focused_references) future.wait();
}

bool EngineMeasurer::build_reference(std::string* why) {
  std::string dir = m_target.work_dir + "/reference";
  BuildOutcome b = build_harness(m_toolchain, m_target.compile, m_target.harness, m_target.source, dir,
                                 m_target.build_timeout_s, &m_harness_objects, &m_store);
  if (!b.ok) {
    if (why) *why = b.first_error;
    return false;
  }
  m_reference_binary = b.binary;
  // The search needs it first thing (candidates with the original's code are
  // not measured): hash while the caller goes on (the original's profile).
  if (m_hasher)
    m_reference_hash = m_pool.submit([hasher = m_hasher, binary = b.binary] { return hasher->hash(binary); });
  return true;
}

std::string EngineMeasurer::source_of(const Configuration& config) const {
  return candidate_source(m_target.source_text, m_target.source, config, m_target.compile.definitions);
}

CompileSettings EngineMeasurer::settings_of(const Configuration& config) const {
  CompileSettings cs = candidate_settings(m_target.compile, config);
  // The same text as the candidate's `#define`, so the two agree without a warning.
  for (const Setting& s : config.settings)
    if (!s.flag && std::count(m_target.harness_macros.begin(), m_target.harness_macros.end(), s.name))
      cs.definitions.push_back(s.name + "=" + s.value);
  return cs;
}

CandidateBuild EngineMeasurer::build(const Configuration& config, const std::string& dir, std::uint64_t mask,
                                     const std::string* text, const std::string* harness) {
  CandidateBuild b;
  // Named after the original, so messages and profiles show the user's file name.
  b.source_path = dir + "/" + fs::path(m_target.source).filename().string();
  fs::create_directories(dir);
  write_file(b.source_path, text ? *text : source_of(config));
  CompileSettings cs = settings_of(config);
  if (mask != 0) cs.definitions.push_back(launcher_mask_definition(mask));
  b.outcome = build_harness(m_toolchain, cs, harness ? *harness : m_target.harness, b.source_path, dir,
                            m_target.build_timeout_s, &m_harness_objects);
  if (b.outcome.ok && m_hasher && !harness) b.hash = m_hasher->hash(b.outcome.binary);
  return b;
}

std::shared_future<BuildOutcome> EngineMeasurer::reference_for(std::uint64_t mask) {
  std::lock_guard<std::mutex> lock(m_references_mutex);
  auto it = m_focused_references.find(mask);
  if (it != m_focused_references.end()) return it->second;
  std::ostringstream dir;
  dir << m_target.work_dir << "/reference-" << std::hex << mask;
  CompileSettings cs = m_target.compile;
  cs.definitions.push_back(launcher_mask_definition(mask));
  // By value: the job owes nothing to this object but the harness objects,
  // which outlive it (the destructor waits for it).
  auto future = m_pool.submit([tc = m_toolchain, cs, harness = m_target.harness, source = m_target.source,
                               dir = dir.str(), timeout = m_target.build_timeout_s, objects = &m_harness_objects,
                               store = &m_store] {
    try {
      return build_harness(tc, cs, harness, source, dir, timeout, objects, store);
    } catch (const std::exception& x) {
      return build_not_attempted(x.what());
    }
  });
  m_focused_references.emplace(mask, future);
  return future;
}

void EngineMeasurer::prepare(const Configuration& config) {
  if (config.is_default()) return;
  m_builds.get(config);
  if (const std::uint64_t mask = m_focus.mask(config)) reference_for(mask);
}

bool EngineMeasurer::ready(const Configuration& config) {
  if (config.is_default()) return true;
  const std::uint64_t mask = m_focus.mask(config);
  return m_builds.done(config) &&
         (mask == 0 || reference_for(mask).wait_for(std::chrono::seconds(0)) == std::future_status::ready);
}

double EngineMeasurer::build_elapsed_s(const Configuration& config) {
  return config.is_default() ? 0.0 : m_builds.elapsed_s(config);
}

std::string EngineMeasurer::machine_code(const Configuration& config) {
  if (config.is_default()) return m_reference_hash.valid() ? m_reference_hash.get() : std::string();
  return m_builds.get(config).get().hash;
}

// `seeds` <= 0: the search's own seeds; else that many fresh random ones.
EvalResult EngineMeasurer::evaluate_build(const CandidateBuild& b, std::uint64_t mask, int device, int seeds,
                                          bool memcheck, const std::vector<std::string>& untimed) {
  EvalResult r;
  if (!b.outcome.ok) {
    r.status = b.outcome.failure;
    r.detail = b.outcome.first_error;
    return r;
  }
  std::string reference = m_reference_binary;
  if (mask != 0) {
    const BuildOutcome& ref = reference_for(mask).get();
    if (!ref.ok) {
      r.status = Status::reference_failed;
      r.detail = "the original does not build with its harness for " + m_focus.names(mask) + ": " + ref.first_error;
      return r;
    }
    reference = ref.binary;
  }
  EvalRequest req = prebuilt_request(m_target, reference, b.outcome.binary, device);
  req.candidate = b.source_path;
  // Correct at every shape the harness has, the validation sizes (the
  // small recorded calls, a launcher's branch edges) included, in the
  // search too, where only the timed sizes are timed: a search that checked
  // the timed sizes alone crowned SGEMM_CUDA kernel 5's BK=32 TM=16 BN=256
  // at 1.268x, a 256-column tile wrong at 128, and its look refused it
  // after the search had spent its budget (H200, 2026-11-29).
  req.validation_sizes = true;
  if (seeds <= 0) {
    // The search's candidates are the user's source with other values: one
    // seed set for all, judged against the original's run while it is recent.
    req.seed_base = m_search_seed;
    req.reference_runs = m_reference_runs;
    // A screen: each size with one seed, one checked timed call a size.
    // Each run of SGEMM_CUDA's harness dumps the program's whole 64 MB C:
    // three seeds and a repeat at its four small sizes took an evaluation
    // from 2.5 s to 4.7 s (H200, 2026-11-29), and its two timed sizes' three
    // seeds, repeat and three checked calls made 14 of an evaluation's 18
    // dumps. The winner's look runs every size with every seed.
    req.screening = true;
    if (m_target.screen_budget_ms > 0) req.budget_ms = m_target.screen_budget_ms;
  } else {
    req.seeds = seeds;
    req.seed_base = 0;  // fresh random seeds, unlike any the search used
    // Timed too, to say how the winner does there; but not where every
    // launcher of a source judged group by group runs at once: SGEMM_CUDA's
    // twelve at all 134 recorded calls' sizes, six seeds, outran the run's
    // 60 s on an H200 (the original itself was killed).
    req.time_every_size = mask != 0 || !m_focus.active();
    req.untimed_sizes = untimed;
    req.back_to_back = true;      // and a speedup that holds back to back, the L2 warm
  }
  if (memcheck) req.memcheck = m_memcheck;
  return Evaluator(m_toolchain, m_probe).evaluate(req);
}

CandidateResult EngineMeasurer::measure(const Configuration& config, int device) {
  CandidateBuild b = m_builds.get(config).get();
  CandidateResult m = candidate_result_of(evaluate_build(b, m_focus.mask(config), device, 0));
  m.compile_s = b.ready_s;  // the whole job (build_cache.h): what the loop's build estimates read
  return m;
}

CandidateResult EngineMeasurer::remeasure(const Configuration& config, int device, int seeds) {
  return candidate_result_of(
      evaluate_build(m_builds.get(config).get(), m_focus.mask(config), device, seeds, m_memcheck.wanted));
}

std::shared_future<CandidateBuild> EngineMeasurer::build_on_pool(const Configuration& config, const std::string& dir,
                                                                 std::uint64_t mask, std::optional<std::string> text,
                                                                 std::optional<std::string> harness) {
  std::shared_future<CandidateBuild> job = m_pool.submit([this, config, dir, mask, text, harness] {
    try {
      return build(config, dir, mask, text ? &*text : nullptr, harness ? &*harness : nullptr);
    } catch (const std::exception& x) {
      CandidateBuild b;
      b.outcome = build_not_attempted(x.what());
      return b;
    }
  });
  m_text_jobs.push_back(job);
  return job;
}

std::shared_future<CandidateBuild> EngineMeasurer::build_text(const std::string& text, const Configuration& config,
                                                              bool whole) {
  return build_on_pool(config, m_target.work_dir + "/guarded-" + std::to_string(m_text_builds++),
                       whole ? 0 : m_focus.mask(config), text, std::nullopt);
}

CandidateResult EngineMeasurer::remeasure_built(const std::shared_future<CandidateBuild>& build,
                                                const Configuration& config, bool whole, int device, int seeds,
                                                const std::vector<std::string>& as_written) {
  const CandidateBuild& b = build.get();
  CandidateResult r =
      candidate_result_of(evaluate_build(b, whole ? 0 : m_focus.mask(config), device, seeds, false, as_written));
  r.compile_s = b.outcome.seconds;
  return r;
}

EngineMeasurer::OtherHarness EngineMeasurer::build_with_harness(const std::string& harness_text,
                                                                const Configuration& config) {
  OtherHarness out;
  const std::string dir = m_target.work_dir + "/other-harness-" + std::to_string(m_text_builds++);
  fs::create_directories(dir);
  out.harness = dir + "/" + fs::path(m_target.harness).filename().string();
  write_file(out.harness, harness_text);
  // The original as a candidate with no setting changed: the same text and settings.
  out.original = build_on_pool(Configuration{}, dir + "/original", 0, std::nullopt, out.harness);
  out.candidate = build_on_pool(config, dir + "/candidate", 0, std::nullopt, out.harness);
  return out;
}

EvalResult EngineMeasurer::check_with_harness(const OtherHarness& builds, bool original_twice, int device,
                                              int seeds) {
  const CandidateBuild& original = builds.original.get();
  const CandidateBuild& candidate = original_twice ? original : builds.candidate.get();
  EvalResult r;
  if (!original.outcome.ok || !candidate.outcome.ok) {
    r.status = !original.outcome.ok ? Status::reference_failed : candidate.outcome.failure;
    r.detail = (!original.outcome.ok ? original : candidate).outcome.first_error;
    return r;
  }
  EngineTarget t = m_target;
  t.harness = builds.harness;
  EvalRequest req = prebuilt_request(t, original.outcome.binary, candidate.outcome.binary, device);
  req.candidate = candidate.source_path;
  req.seeds = seeds;
  req.seed_base = 0;  // fresh random seeds
  req.validation_sizes = true;
  req.timing = false;
  return Evaluator(m_toolchain, m_probe).evaluate(req);
}

void EngineMeasurer::prepare_whole(const Configuration& config) { m_whole_builds.get(config); }

CandidateResult EngineMeasurer::remeasure_whole(const Configuration& config, int device, int seeds) {
  return candidate_result_of(evaluate_build(m_whole_builds.get(config).get(), 0, device, seeds));
}

std::vector<CandidateResult> EngineMeasurer::remeasure_each_alone(const Configuration& config, int launchers,
                                                                  int device, int seeds) {
  launchers = std::min(launchers, kMaskedLaunchers);
  std::vector<std::future<CandidateBuild>> builds;
  for (int k = 0; k < launchers; ++k) {
    const std::uint64_t mask = std::uint64_t{1} << k;
    reference_for(mask);  // on the pool meanwhile
    std::ostringstream dir;
    dir << m_target.work_dir << "/alone-" << std::hex << mask;
    builds.push_back(std::async(std::launch::async, [this, &config, d = dir.str(), mask] { return build(config, d, mask); }));
  }
  std::vector<CandidateBuild> built;
  for (std::future<CandidateBuild>& b : builds) built.push_back(b.get());  // every job joined before any throw
  std::vector<CandidateResult> out;
  for (int k = 0; k < launchers; ++k)
    out.push_back(candidate_result_of(evaluate_build(built[static_cast<std::size_t>(k)], std::uint64_t{1} << k, device,
                                                     seeds)));
  return out;
}


}  // namespace kernelblaster::tuner

