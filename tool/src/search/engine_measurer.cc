#include "search/engine_measurer.h"

#include <filesystem>

#include "common/file_util.h"
#include "search/candidate_source.h"

namespace fs = std::filesystem;

namespace kernelblaster::search {

EngineMeasurer::EngineMeasurer(Toolchain toolchain, GpuProbe& probe, CompilePool& pool, SassHasher* hasher,
                               EngineTarget target)
    : m_toolchain(std::move(toolchain)), m_probe(probe), m_hasher(hasher), m_target(std::move(target)),
      m_pool(pool), m_builds(pool, m_target.work_dir + "/candidates",
                             [this](const Configuration& c, const std::string& dir) { return build(c, dir); }) {}

EngineMeasurer::~EngineMeasurer() {
  m_builds.close();  // the reference's hash may wait in the pool behind builds nobody needs now
  if (m_reference_hash.valid()) m_reference_hash.wait();
}

bool EngineMeasurer::build_reference(std::string* why) {
  std::string dir = m_target.work_dir + "/reference";
  BuildOutcome b = build_harness(m_toolchain, m_target.compile, m_target.harness, m_target.source, dir,
                                 m_target.build_timeout_s);
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
  return candidate_settings(m_target.compile, config);
}

CandidateBuild EngineMeasurer::build(const Configuration& config, const std::string& dir) {
  CandidateBuild b;
  // Named after the original, so messages and profiles show the user's file name.
  b.source_path = dir + "/" + fs::path(m_target.source).filename().string();
  fs::create_directories(dir);
  write_file(b.source_path, source_of(config));
  b.outcome = build_harness(m_toolchain, settings_of(config), m_target.harness, b.source_path, dir,
                            m_target.build_timeout_s);
  if (b.outcome.ok && m_hasher) b.hash = m_hasher->hash(b.outcome.binary);
  return b;
}

void EngineMeasurer::prepare(const Configuration& config) {
  if (!config.is_default()) m_builds.get(config);
}

bool EngineMeasurer::ready(const Configuration& config) {
  return config.is_default() || m_builds.done(config);
}

std::string EngineMeasurer::machine_code(const Configuration& config) {
  if (config.is_default()) return m_reference_hash.valid() ? m_reference_hash.get() : std::string();
  return m_builds.get(config).get().hash;
}

EvalRequest EngineMeasurer::request_for(const CandidateBuild& build, int device) const {
  EvalRequest req = prebuilt_request(m_target, m_reference_binary, build.outcome.binary, device);
  req.candidate = build.source_path;
  return req;
}

CandidateResult EngineMeasurer::measure(const Configuration& config, int device) {
  CandidateBuild b = m_builds.get(config).get();
  if (!b.outcome.ok) {
    CandidateResult m;
    m.compile_s = b.outcome.seconds;
    m.status = Status::compile_failed;
    m.detail = b.outcome.first_error;
    return m;
  }
  CandidateResult m = candidate_result_of(Evaluator(m_toolchain, m_probe).evaluate(request_for(b, device)));
  m.compile_s = b.outcome.seconds;
  return m;
}

CandidateResult EngineMeasurer::remeasure(const Configuration& config, int device, int seeds) {
  return candidate_result_of(evaluate(config, device, seeds));
}

EvalResult EngineMeasurer::evaluate(const Configuration& config, int device, int seeds) {
  CandidateBuild b = m_builds.get(config).get();
  if (!b.outcome.ok) {
    EvalResult r;
    r.status = Status::compile_failed;
    r.detail = b.outcome.first_error;
    return r;
  }
  EvalRequest req = request_for(b, device);
  req.seeds = seeds;
  req.seed_base = 0;  // fresh random seeds, unlike any the search used
  return Evaluator(m_toolchain, m_probe).evaluate(req);
}

}  // namespace kernelblaster::search

