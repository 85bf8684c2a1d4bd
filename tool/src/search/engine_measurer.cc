#include "search/engine_measurer.h"

#include <cmath>
#include <filesystem>

#include "common/file_util.h"
#include "search/candidate_source.h"

namespace fs = std::filesystem;

namespace kernelblaster::search {

void medians_of(const EvalResult& r, double* candidate_us, double* reference_us) {
  double lc = 0, lr = 0;
  int n = 0;
  for (const SizeTiming& t : r.timing) {
    if (t.median_us <= 0 || t.reference_median_us <= 0) continue;
    lc += std::log(t.median_us);
    lr += std::log(t.reference_median_us);
    ++n;
  }
  *candidate_us = n ? std::exp(lc / n) : 0.0;
  *reference_us = n ? std::exp(lr / n) : 0.0;
}

EngineMeasurer::EngineMeasurer(Toolchain toolchain, GpuProbe& probe, CompilePool& pool, SassHasher* hasher,
                               EngineTarget target)
    : m_toolchain(std::move(toolchain)), m_probe(probe), m_pool(pool), m_hasher(hasher),
      m_target(std::move(target)) {}

EngineMeasurer::~EngineMeasurer() {
  m_closing = true;
  std::lock_guard<std::mutex> lock(m_mutex);
  for (auto& [id, future] : m_builds) future.wait();
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
  return true;
}

std::string EngineMeasurer::source_of(const Configuration& config) const {
  return candidate_source(m_target.source_text, m_target.source, config, m_target.compile.definitions);
}

CompileSettings EngineMeasurer::settings_of(const Configuration& config) const {
  return candidate_settings(m_target.compile, config);
}

std::shared_future<EngineMeasurer::Build> EngineMeasurer::build_of(const Configuration& config) {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_builds.find(config.id);
  if (it != m_builds.end()) return it->second;
  std::string dir = m_target.work_dir + "/candidates/" + std::to_string(m_next++);
  std::string text = source_of(config);
  CompileSettings cs = settings_of(config);
  // Named after the original, so messages and profiles show the user's file name.
  std::string path = dir + "/" + fs::path(m_target.source).filename().string();
  auto future = m_pool.submit([this, dir, text, cs, path] {
    Build b;
    b.source_path = path;
    if (m_closing) {
      b.outcome.first_error = "not built: the run ended";
      return b;
    }
    fs::create_directories(dir);
    write_file(path, text);
    b.outcome = build_harness(m_toolchain, cs, m_target.harness, path, dir, m_target.build_timeout_s);
    if (b.outcome.ok && m_hasher) b.hash = m_hasher->hash(b.outcome.binary);
    return b;
  });
  m_builds.emplace(config.id, future);
  return future;
}

void EngineMeasurer::prepare(const Configuration& config) {
  if (!config.is_default()) build_of(config);
}

std::string EngineMeasurer::machine_code(const Configuration& config) {
  if (config.is_default()) {
    if (m_reference_hash.empty() && m_hasher && !m_reference_binary.empty())
      m_reference_hash = m_hasher->hash(m_reference_binary);
    return m_reference_hash;
  }
  return build_of(config).get().hash;
}

EvalRequest EngineMeasurer::request_for(const Build& build, int device) const {
  EvalRequest req;
  req.source = m_target.source;
  req.candidate = build.source_path;
  req.harness = m_target.harness;
  req.compile = m_target.compile;
  req.seeds = m_target.seeds;
  req.run_timeout_s = m_target.run_timeout_s;
  req.build_timeout_s = m_target.build_timeout_s;
  req.budget_ms = m_target.budget_ms;
  req.device = device;
  req.lock_dir = m_target.lock_dir;
  req.reference_binary = m_reference_binary;
  req.candidate_binary = build.outcome.binary;
  return req;
}

Measurement EngineMeasurer::measure(const Configuration& config, int device) {
  Build b = build_of(config).get();
  Measurement m;
  m.compile_s = b.outcome.seconds;
  if (!b.outcome.ok) {
    m.status = "compile_failed";
    m.detail = b.outcome.first_error;
    return m;
  }
  EvalResult r = Evaluator(m_toolchain, m_probe).evaluate(request_for(b, device));
  m.status = status_name(r.status);
  m.detail = r.detail;
  m.speedup = r.status == Status::ok ? r.speedup : 0.0;
  medians_of(r, &m.median_us, &m.reference_median_us);
  m.eval_s = r.eval_seconds;
  return m;
}

EvalResult EngineMeasurer::evaluate(const Configuration& config, int device, int seeds) {
  Build b = build_of(config).get();
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
