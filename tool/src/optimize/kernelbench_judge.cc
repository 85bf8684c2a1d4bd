#include "optimize/kernelbench_judge.h"

#include <filesystem>

#include "common/file_util.h"
#include "kernelbench/evaluate.h"
#include "optimize/engine_judge.h"
#include "profile/metric_sets.h"

namespace kernelblaster::optimize {

namespace fs = std::filesystem;

KernelBenchJudge::KernelBenchJudge(Toolchain toolchain, GpuProbe& probe, KernelBenchJudgeTarget target)
    : m_toolchain(std::move(toolchain)), m_probe(probe), m_target(std::move(target)) {}

std::string KernelBenchJudge::write_candidate(const std::string& source, const std::string& tag) {
  const std::string dir = m_target.work_dir + "/candidates/" + tag;
  fs::create_directories(dir);
  const std::string path = dir + "/candidate.cu";
  write_file(path, source);
  return path;
}

Judgement KernelBenchJudge::evaluate(const std::string& candidate_path, int seeds, bool profiled) {
  kernelbench::KernelBenchRequest req;
  req.problem_dir = m_target.problem_dir;
  req.candidate_path = candidate_path;
  req.work_dir = m_target.work_dir + "/kernelbench";
  req.arch = m_target.arch;
  req.torch_prefix = m_target.torch_prefix;
  req.run.seeds = seeds;
  req.run.device = m_target.device;
  req.run.lock_dir = m_target.lock_dir;
  req.run.run_timeout_s = m_target.run_timeout_s;
  req.run.untrusted = !candidate_path.empty();  // a model's code: its object is held to the bound before it runs
  // The full set: the state rules read access-pattern and stall counters
  // the one-pass set lacks (measured: RMSNorm's cheap profile matched no rule).
  if (profiled) req.run.profile = profile::MetricSet::full;
  return judgement_of([&] { return kernelbench::evaluate_kernelbench(req, m_toolchain, m_probe); });
}

// The original's profile (the full set, once per run) is what the loop
// classifies the state from. A
// profiled evaluation that fails where an unprofiled one would not (the
// evaluator already replays a crashed profiled process) is retried bare:
// the state then falls back, the run goes on.
Judgement KernelBenchJudge::judge_original() {
  Judgement v = evaluate("", m_target.seeds, /*profiled=*/true);
  if (v.status == Status::ok || v.status == Status::reference_failed || v.status == Status::compile_failed) return v;
  return evaluate("", m_target.seeds, /*profiled=*/false);
}

Judgement KernelBenchJudge::judge(const std::string& source, const std::string& tag) {
  return evaluate(write_candidate(source, tag), m_target.seeds);
}

Judgement KernelBenchJudge::confirm(const std::string& source, const std::string& tag, int seeds) {
  return evaluate(write_candidate(source, tag), seeds < 3 ? 3 : seeds);
}

}  // namespace kernelblaster::optimize
