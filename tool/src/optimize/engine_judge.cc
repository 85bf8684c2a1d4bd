#include "optimize/engine_judge.h"

#include <filesystem>
#include <future>

#include "common/file_util.h"
#include "judge/object_bound.h"

namespace kernelblaster::optimize {
namespace {

namespace fs = std::filesystem;

// The compiler's output as the fix prompt shows it: the lines that say
// "error" first, then the rest, cut.
std::string compiler_feedback(const std::string& log) {
  std::string errors, rest;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    (line.find("error") != std::string::npos ? errors : rest) += line + "\n";
  }
  std::string out = errors + rest;
  return out.size() > 4000 ? out.substr(0, 4000) : out;
}

}  // namespace

Judgement judgement_of(const EvalResult& r) {
  Judgement v;
  static_cast<CandidateResult&>(v) = candidate_result_of(r);
  if (!v.verified()) v.median_us = v.reference_median_us = 0;
  v.reverified = r.reverified;
  if (!r.profile.empty()) v.metrics = r.profile.front().metrics;
  for (const KernelProfile& k : r.profile) {
    v.kernels_by_time.push_back(k.name);
    v.kernel_metrics.push_back(k.metrics);
  }
  v.plausibility = r.plausibility.line;
  return v;
}

Judgement judgement_of(const std::function<EvalResult()>& evaluate) {
  try {
    return judgement_of(evaluate());
  } catch (const std::exception& x) {
    Judgement v;
    v.status = Status::tool_error;
    v.detail = x.what();
    return v;
  }
}

EngineJudge::EngineJudge(Toolchain toolchain, GpuProbe& probe, EngineTarget target, int device)
    : m_toolchain(std::move(toolchain)), m_probe(probe), m_target(std::move(target)), m_device(device) {}

Judgement EngineJudge::build(const std::string& source, const std::string& tag, std::string* binary) {
  if (auto it = m_binaries.find(source); it != m_binaries.end()) {
    *binary = it->second;
    return {};
  }
  const std::string dir = m_target.work_dir + "/" + tag;
  fs::create_directories(dir);
  const std::string path = dir + "/" + fs::path(m_target.source).filename().string();
  write_file(path, source);
  // A model's code: its object is held to the bound before it runs,
  // compiled beside the harness build. A definition the bound refuses can
  // break the link itself (a redefined cudaDeviceSynchronize against the
  // static runtime), so its verdict comes first: the model is told the
  // symbol, not the linker's line.
  std::future<Verdict> bound;
  if (tag != "original")
    bound = std::async(std::launch::async, [&] {
      return check_candidate_object(m_toolchain, m_target.compile, m_target.source, path, dir + "/objects",
                                    m_target.build_timeout_s);
    });
  BuildOutcome b = build_harness(m_toolchain, m_target.compile, m_target.harness, path, dir + "/build",
                                 m_target.build_timeout_s);
  Judgement v;
  if (bound.valid()) {
    const Verdict refused = bound.get();
    if (refused.status == Status::forbidden_code || (b.ok && !refused.verified())) {
      v.status = refused.status;
      v.detail = refused.detail;
      return v;
    }
  }
  if (b.ok) {
    *binary = b.binary;
    m_binaries[source] = b.binary;
    return v;
  }
  v.status = b.failure;
  v.detail = b.first_error;
  v.compiler_output = compiler_feedback(b.log);
  return v;
}

Judgement EngineJudge::evaluate(const std::string& binary, int seeds, bool profiled, const std::string& work) {
  EvalRequest req = prebuilt_request(m_target, m_reference_binary, binary, m_device);
  req.seeds = seeds;
  req.work_dir = work;
  req.keep_work_dir = true;
  // The full set: the state rules read access-pattern and stall counters
  // that the one-pass set lacks, and a step's state comes from its base's
  // profile (the original's, or the last kept candidate's).
  if (profiled) req.profile = profile::MetricSet::full;
  return judgement_of([&] { return Evaluator(m_toolchain, m_probe).evaluate(req); });
}

Judgement EngineJudge::judge_original() {
  if (m_reference_binary.empty()) {
    Judgement built = build(read_file(m_target.source), "original", &m_reference_binary);
    if (m_reference_binary.empty()) {
      built.status = built.status == Status::tool_error ? Status::tool_error : Status::reference_failed;
      built.detail = "the original does not build with its harness: " + built.detail;
      return built;
    }
  }
  return evaluate(m_reference_binary, m_target.seeds, true, m_target.work_dir + "/original/eval");
}

Judgement EngineJudge::judge(const std::string& source, const std::string& tag) {
  std::string binary;
  Judgement built = build(source, tag, &binary);
  if (binary.empty()) return built;
  return evaluate(binary, m_target.seeds, true, m_target.work_dir + "/" + tag + "/eval");
}

Judgement EngineJudge::confirm(const std::string& source, const std::string& tag, int seeds) {
  std::string binary;
  Judgement built = build(source, tag, &binary);
  if (binary.empty()) return built;
  return evaluate(binary, seeds < 3 ? 3 : seeds, false, m_target.work_dir + "/" + tag + "/eval");
}

}  // namespace kernelblaster::optimize
