#include "eval/evaluator.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <stdexcept>

#include "common/file_util.h"
#include "common/protocol.h"
#include "eval/judge.h"
#include "eval/plan_builder.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct HarnessRun {
  ProcessResult process;
  bool has_report = false;
  HarnessReport report;
  std::string out_dir;
};

HarnessRun run_harness(const std::string& binary, const Plan& plan, const std::string& out_dir, double timeout_s) {
  HarnessRun run;
  run.out_dir = out_dir;
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  std::string plan_path = out_dir + "/plan.json";
  write_file_atomic(plan_path, plan_to_json(plan));
  ProcessOptions opt;
  opt.timeout_s = timeout_s;
  opt.cwd = out_dir;
  run.process = run_process({binary, "--plan", plan_path, "--out", out_dir}, opt);
  if (!run.process.timed_out && fs::exists(out_dir + "/report.json")) {
    try {
      run.report = report_from_json(read_file(out_dir + "/report.json"));
      run.has_report = true;
    } catch (const std::exception&) {
      run.has_report = false;  // a torn or forged report is as good as none
    }
  }
  return run;
}

struct Round {
  Verdict verdict;
  std::vector<RunCheck> checks;
  std::vector<SizeTiming> timing;
  double speedup = 0;
};

// One plan through both builds and the judges.
Round play(const std::string& ref_bin, const std::string& cand_bin, const Plan& plan, const std::string& work,
           const std::string& tag, double timeout_s) {
  Round round;
  HarnessRun ref = run_harness(ref_bin, plan, work + "/reference/" + tag, timeout_s);
  Verdict rv = judge_process(ref.process, ref.has_report ? &ref.report : nullptr);
  if (rv.status != Status::ok) {
    round.verdict = {Status::reference_failed, "the original source failed: " + std::string(status_name(rv.status)) +
                                                   ": " + rv.detail};
    return round;
  }
  HarnessRun cand = run_harness(cand_bin, plan, work + "/candidate/" + tag, timeout_s);
  round.verdict = judge_process(cand.process, cand.has_report ? &cand.report : nullptr);
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_untimed(cand.report);
  if (round.verdict.status != Status::ok) return round;
  try {
    round.verdict = judge_correctness(ref.report, ref.out_dir, cand.report, cand.out_dir, &round.checks);
  } catch (const std::exception& x) {
    round.verdict = {Status::crashed, std::string("unreadable candidate output: ") + x.what()};
  }
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_timing(cand.report);
  round.timing = compare_timing(ref.report, cand.report, &round.speedup);
  return round;
}

}  // namespace

EvalResult Evaluator::evaluate(const EvalRequest& req) {
  auto t_start = std::chrono::steady_clock::now();
  for (const std::string* p : {&req.source, &req.harness})
    if (!fs::is_regular_file(*p)) throw std::runtime_error("no such file: " + *p);
  std::string candidate = req.candidate.empty() ? req.source : req.candidate;
  if (!fs::is_regular_file(candidate)) throw std::runtime_error("no such file: " + candidate);
  if (req.seeds < 3) throw std::runtime_error("at least 3 seeds are needed, got " + std::to_string(req.seeds));

  EvalResult res;
  GpuInfo gpu = m_probe.probe(req.device);
  if (!gpu.present) {
    res.status = Status::no_gpu;
    res.detail = gpu.reason;
    return res;
  }
  res.device = gpu.name;

  CompileSettings cs = req.compile;
  if (cs.arch.empty()) cs.arch = gpu.arch;
  // nvcc runs inside each scratch directory: every path must be absolute.
  for (std::string& d : cs.include_dirs) d = fs::absolute(d).string();
  cs.include_dirs.push_back(fs::absolute(req.source).parent_path().string());

  std::string work = req.work_dir;
  bool temporary = work.empty();
  if (temporary) {
    std::string tmpl = (fs::temp_directory_path() / "kernelblaster-eval-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a work directory in /tmp");
    work = tmpl;
  }
  work = fs::absolute(work).string();
  fs::create_directories(work);

  auto ref_build = std::async(std::launch::async, [&] {
    return build_harness(m_toolchain, cs, req.harness, req.source, work + "/reference", req.build_timeout_s);
  });
  BuildOutcome cand_build = build_harness(m_toolchain, cs, req.harness, candidate, work + "/candidate",
                                          req.build_timeout_s);
  BuildOutcome ref = ref_build.get();
  res.compile_seconds = std::max(ref.seconds, cand_build.seconds);
  auto finish = [&](EvalResult& r) -> EvalResult& {
    r.eval_seconds = seconds_since(t_start) - r.compile_seconds;
    if (temporary && !req.keep_work_dir) fs::remove_all(work);
    else r.notes.push_back("work directory: " + work);
    return r;
  };
  if (!ref.ok) {
    res.status = Status::reference_failed;
    res.detail = "the original source does not build with its harness: " + ref.first_error;
    return finish(res);
  }
  if (!cand_build.ok) {
    res.status = Status::compile_failed;
    res.detail = cand_build.first_error;
    return finish(res);
  }

  ProcessOptions describe_opt;
  describe_opt.timeout_s = 30;
  ProcessResult described = run_process({ref.binary, "--describe"}, describe_opt);
  HarnessReport decl;
  try {
    if (!described.ok()) throw std::runtime_error(described.how_it_ended() + ": " + described.output_tail(1));
    decl = report_from_json(described.output);
  } catch (const std::exception& x) {
    res.status = Status::harness_error;
    res.detail = std::string("the harness cannot describe itself: ") + x.what();
    return finish(res);
  }

  Plan plan;
  plan.runs = correctness_runs(decl.sizes, make_seeds(req.seeds, req.seed_base), false);
  plan.timing.enabled = req.timing;
  plan.timing.budget_ms = req.budget_ms;
  plan.lock_dir = req.lock_dir;
  plan.device = req.device;
  Round round = play(ref.binary, cand_build.binary, plan, work, "main", req.run_timeout_s);

  if (round.verdict.status == Status::ok && round.speedup > req.implausible_speedup) {
    // Too good to believe on one look: more seeds, the validation sizes, a
    // second timing. Only a candidate that survives keeps its speedup.
    Plan again = plan;
    again.runs = correctness_runs(decl.sizes, make_seeds(2 * req.seeds, req.seed_base ? req.seed_base + 1000 : 0),
                                  true);
    again.timing.seed ^= 0x9e37'79b9ull;
    Round second = play(ref.binary, cand_build.binary, again, work, "reverify", req.run_timeout_s);
    res.reverified = true;
    round.checks.insert(round.checks.end(), second.checks.begin(), second.checks.end());
    round.verdict = second.verdict;
    if (second.verdict.status == Status::ok) {
      round.timing = second.timing;
      round.speedup = second.speedup;
    }
  }
  res.status = round.verdict.status;
  res.detail = round.verdict.detail;
  res.checks = std::move(round.checks);
  res.timing = std::move(round.timing);
  res.speedup = res.status == Status::ok ? round.speedup : 0.0;
  return finish(res);
}

}  // namespace kernelblaster
