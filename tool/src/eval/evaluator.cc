#include "eval/evaluator.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <stdexcept>

#include "common/clock.h"
#include "common/file_util.h"
#include "common/protocol.h"
#include "eval/judge.h"
#include "eval/plan_builder.h"
#include "eval/plausibility.h"
#include "profile/ceilings_cache.h"
#include "runtime/driver_version.h"
#include "profile/kernel_metrics.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

void note_process(SandboxRecord& s, const ProcessResult& p) {
  s.add(p.network_isolated, p.resident_limit_bytes, p.peak_resident_bytes, p.strays_killed);
}

struct HarnessRun {
  ProcessResult process;
  bool has_report = false;
  HarnessReport report;
  std::string out_dir;
};

HarnessRun run_harness(const std::string& binary, const Plan& plan, const std::string& out_dir, double timeout_s,
                       const ProcessLimits& limits,
                       const std::function<bool()>& cancel = {}) {
  HarnessRun run;
  run.out_dir = out_dir;
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  std::string plan_path = out_dir + "/plan.json";
  write_file_atomic(plan_path, plan_to_json(plan));
  ProcessOptions opt;
  opt.timeout_s = timeout_s;
  opt.cwd = out_dir;
  // Waiting for a GPU another evaluation holds is not running late.
  opt.start_marker = out_dir + "/" + kLockHeldMarker;
  opt.start_timeout_s = plan.lock_timeout_s + 60;
  opt.limits = limits;
  opt.cancel = cancel;
  run.process = run_process({binary, "--plan", plan_path, "--out", out_dir}, opt);
  if (!run.process.timed_out && !run.process.cancelled && fs::exists(out_dir + "/report.json")) {
    try {
      run.report = report_from_json(read_file(out_dir + "/report.json"));
      run.has_report = true;
    } catch (const std::exception&) {
      run.has_report = false;  // a torn or forged report is as good as none
    }
  }
  return run;
}

// The candidate's program: built, or still building while the original's
// process runs (EvalRequest::build_candidate).
struct CandidateProgram {
  BuildOutcome built;                        // when built before the runs
  std::shared_future<BuildOutcome> pending;  // when building beside them

  bool building() const {
    return pending.valid() && pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  }
  // The build's outcome, once it is there (waits for a pending one).
  const BuildOutcome& outcome() const { return pending.valid() ? pending.get() : built; }
  bool failed_already() const { return !building() && !outcome().ok; }
  // The binary, or null with `failure` set to the build's first error.
  const std::string* binary(std::string* failure) const {
    const BuildOutcome& b = outcome();
    if (b.ok) return &b.binary;
    *failure = b.first_error.empty() ? "the candidate does not build" : b.first_error;
    return nullptr;
  }
};

struct Round {
  Verdict verdict;
  Calibration calibration;
  std::vector<RunCheck> checks;
  std::vector<SizeTiming> timing;
  double speedup = 0;
  HarnessReport candidate;  // the candidate's report, when it wrote one (its profile, its device)
  HarnessReport reference;  // the original's report (its buffers: the work every call must do)
  std::vector<std::pair<std::string, double>> phases;
  // Each process's own phases ("reference setup", ...), and its start and
  // exit (libraries, CUDA context teardown) as "reference start and exit".
  std::vector<std::pair<std::string, double>> process_phases;
  SandboxRecord sandbox;
};

void add_process_phases(Round& round, const std::string& who, const HarnessRun& run) {
  if (!run.has_report) return;
  for (const auto& [name, seconds] : run.report.phase_s) round.process_phases.emplace_back(who + " " + name, seconds);
  round.process_phases.emplace_back(who + " start and exit", std::max(0.0, run.process.seconds - run.report.wall_s));
}

// One plan through both builds and the judges. `profile` (size >= 0) is
// asked of the candidate only, after its timing in the same process.
Round play(const std::string& ref_bin, CandidateProgram& cand_prog, const Plan& plan, const std::string& work,
           const std::string& tag, double timeout_s, const ProcessLimits& limits, const ProfileRequest& profile = {}) {
  Round round;
  auto t = std::chrono::steady_clock::now();
  auto phase = [&](const std::string& name) {
    round.phases.emplace_back(tag == "main" ? name : tag + " " + name, seconds_since(t));
    t = std::chrono::steady_clock::now();
  };
  // A candidate that fails to build while the original runs stops it.
  HarnessRun ref = run_harness(ref_bin, plan, work + "/reference/" + tag, timeout_s, limits,
                               [&cand_prog] { return cand_prog.failed_already(); });
  phase("reference process");
  note_process(round.sandbox, ref.process);
  const std::string who = tag == "main" ? "" : tag + " ";
  add_process_phases(round, who + "reference", ref);
  std::string build_failure;
  if (ref.process.cancelled && !cand_prog.binary(&build_failure)) {
    round.verdict = {Status::compile_failed, build_failure};
    return round;
  }
  Verdict rv = judge_process(ref.process, ref.has_report ? &ref.report : nullptr);
  if (rv.status != Status::ok) {
    round.verdict = {Status::reference_failed, "the original source failed: " + std::string(status_name(rv.status)) +
                                                   ": " + rv.detail};
    return round;
  }
  round.reference = ref.report;
  try {
    round.calibration = calibrate(ref.report, ref.out_dir);
  } catch (const std::exception& x) {
    round.verdict = {Status::reference_failed, std::string("unreadable output of the original: ") + x.what()};
    return round;
  }
  phase("calibration");
  round.verdict = judge_reference(round.calibration);
  if (round.verdict.status != Status::ok) return round;
  // A candidate still building (calibration ran beside it) is waited for here.
  const bool was_pending = cand_prog.building();
  const std::string* cand_bin = cand_prog.binary(&build_failure);
  if (was_pending) phase("candidate build, after the original's run");
  if (!cand_bin) {
    round.verdict = {Status::compile_failed, build_failure};
    return round;
  }
  Plan cand_plan = plan;
  cand_plan.profile = profile;
  cand_plan.probe_initial_outputs = false;
  cand_plan.dump_oracles = false;  // judged against the original's oracles only
  cand_plan.isolate = true;        // nothing of torch's answer within the call's reach (KernelBench)
  cand_plan.keep_initial_outputs = ref.report.kept_initial_outputs;
  HarnessRun cand = run_harness(*cand_bin, cand_plan, work + "/candidate/" + tag, timeout_s, limits);
  phase("candidate process");
  note_process(round.sandbox, cand.process);
  add_process_phases(round, who + "candidate", cand);
  if (cand.has_report) round.candidate = cand.report;
  round.verdict = judge_process(cand.process, cand.has_report ? &cand.report : nullptr);
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_untimed(cand.report);
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_state(ref.report, cand.report);
  if (round.verdict.status != Status::ok) return round;
  try {
    round.verdict =
        judge_correctness(ref.report, ref.out_dir, cand.report, cand.out_dir, round.calibration, &round.checks);
  } catch (const std::exception& x) {
    round.verdict = {Status::crashed, std::string("unreadable candidate output: ") + x.what()};
  }
  phase("judging");
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_timing(ref.report, cand.report);
  round.timing = compare_timing(ref.report, cand.report, &round.speedup);
  return round;
}

// This GPU's measured ceilings, where they were measured (gpu ceilings).
std::optional<profile::Ceilings> cached_ceilings(const DeviceInfo& device, std::vector<std::string>* notes) {
  profile::GpuFingerprint gpu{device.name, device.cc_major, device.cc_minor, device.sm_count,
                              profile::version_major(profile::kernel_driver_version())};
  try {
    if (auto cached = profile::CeilingsCache(profile::default_cache_dir()).load(gpu)) return cached->ceilings;
  } catch (const std::exception& x) {
    notes->push_back(std::string("ceilings cache ignored: ") + x.what());
  }
  return std::nullopt;
}

// The candidate's profile, from the profiled call its main-round process
// made after timing: counters, launch and compile-time facts, roofline.
void add_profile(const HarnessReport& cand, const std::string& build_log, const std::string& size_label,
                 EvalResult& res) {
  const ProfileReport& pr = cand.profile;
  res.profile_seconds = pr.wall_s;
  if (!pr.requested) {
    res.profile_note = "profiling failed: the candidate's report has no profile";
    return;
  }
  profile::ProfileInputs in;
  in.report = &pr;
  std::map<std::string, profile::PtxasFacts> ptxas = profile::parse_ptxas_verbose(build_log);
  if (!ptxas.empty()) in.ptxas = &ptxas;
  in.ceilings = cached_ceilings(cand.device, &res.notes);
  if (!in.ceilings && (pr.flops >= 0 || pr.bytes >= 0))
    res.notes.push_back("no ceilings cached for this GPU (run `kernelblaster gpu ceilings`): roofline percentages absent");
  for (const SizeTiming& t : res.timing)
    if (t.size == size_label) {
      in.call_median_us = t.median_us;
      in.kernels_per_run = t.kernels_per_run;
    }
  res.profile = profile::build_kernel_profiles(in);
  res.profile_note = pr.note;
  if (!pr.missing.empty()) {
    std::string names;
    for (const std::string& m : pr.missing) names += (names.empty() ? "" : ", ") + m;
    res.notes.push_back("metrics the chip rejected (absent from the profile): " + names);
  }
}

}  // namespace

EvalResult Evaluator::evaluate(const EvalRequest& req) {
  auto t_start = std::chrono::steady_clock::now();
  // Programs built elsewhere (the tuner's pool, KernelBench drivers) need no sources here.
  const bool prebuilt_both =
      !req.reference_binary.empty() && (!req.candidate_binary.empty() || static_cast<bool>(req.build_candidate));
  std::string candidate = req.candidate.empty() ? req.source : req.candidate;
  if (!prebuilt_both)
    for (const std::string* p : {&req.source, &req.harness, static_cast<const std::string*>(&candidate)})
      if (!fs::is_regular_file(*p)) throw std::runtime_error("no such file: " + *p);
  if (req.seeds < 3) throw std::runtime_error("at least 3 seeds are needed, got " + std::to_string(req.seeds));
  // Every harness process of this evaluation runs under these; a sandbox
  // setting that cannot be read fails here, before any build.
  const ProcessLimits limits = harness_process_limits();

  EvalResult res;
  GpuInfo gpu = m_probe.probe(req.device);
  if (!gpu.present) {
    res.status = Status::no_gpu;
    res.detail = gpu.reason;
    if (req.candidate_binary.empty() && req.build_candidate) {
      // A candidate that does not build says so with or without a GPU.
      BuildOutcome b = req.build_candidate();
      res.compile_seconds = b.seconds;
      if (!b.ok) {
        res.status = Status::compile_failed;
        res.detail = b.first_error;
      }
    }
    res.wall_seconds = seconds_since(t_start);
    return res;
  }
  res.device = gpu.name;

  CompileSettings cs = req.compile;
  if (cs.arch.empty()) cs.arch = gpu.arch;
  // nvcc runs inside each scratch directory: every path must be absolute.
  for (std::string& d : cs.include_dirs) d = fs::absolute(d).string();
  if (!req.source.empty()) cs.include_dirs.push_back(fs::absolute(req.source).parent_path().string());
  // Compile-time facts for the profile (registers, spills): ptxas says them
  // in the build log; the binary is the same either way.
  if (req.profile) cs.flags.insert(cs.flags.end(), {"-Xptxas", "-v"});

  std::string work = req.work_dir;
  bool temporary = work.empty();
  if (temporary) {
    work = make_work_dir("kernelblaster-eval");
  }
  work = fs::absolute(work).string();
  fs::create_directories(work);

  auto prebuilt = [](const std::string& binary) {
    BuildOutcome b;
    b.ok = fs::is_regular_file(binary);
    b.binary = binary;
    if (!b.ok) b.first_error = "prebuilt harness " + binary + " is missing";
    return b;
  };
  auto ref_build = std::async(std::launch::async, [&] {
    if (!req.reference_binary.empty()) return prebuilt(req.reference_binary);
    return build_harness(m_toolchain, cs, req.harness, req.source, work + "/reference", req.build_timeout_s);
  });
  // The candidate's build overlaps the original's process when the caller
  // builds it (KernelBench), else it is built here beside the original's.
  const bool overlapped = req.candidate_binary.empty() && !req.reference_binary.empty() && req.build_candidate;
  CandidateProgram cand_prog;
  if (overlapped)
    cand_prog.pending = std::async(std::launch::async, req.build_candidate).share();
  else
    cand_prog.built = !req.candidate_binary.empty() ? prebuilt(req.candidate_binary)
                                                    : build_harness(m_toolchain, cs, req.harness, candidate,
                                                                    work + "/candidate", req.build_timeout_s);
  BuildOutcome ref = ref_build.get();
  res.compile_seconds = std::max(ref.seconds, cand_prog.built.seconds);
  auto finish = [&](EvalResult& r) -> EvalResult& {
    // Time spent building before anything ran is not evaluation time; an
    // overlapped build is, where the evaluation waited for it.
    r.eval_seconds = seconds_since(t_start) - r.compile_seconds;
    r.wall_seconds = seconds_since(t_start);
    r.compile_seconds = std::max(r.compile_seconds, cand_prog.outcome().seconds);  // waits for a pending build
    if (temporary && !req.keep_work_dir) fs::remove_all(work);
    else r.notes.push_back("work directory: " + work);
    return r;
  };
  if (!ref.ok && ref.nvcc_unusable) {
    // Neither side can be judged; naming the original as the culprit would be false.
    res.status = Status::tool_error;
    res.detail = ref.first_error;
    return finish(res);
  }
  if (!ref.ok) {
    res.status = Status::reference_failed;
    res.detail = "the original source does not build with its harness: " + ref.first_error;
    return finish(res);
  }
  if (!overlapped && !cand_prog.built.ok) {
    res.status = Status::compile_failed;
    res.detail = cand_prog.built.first_error;
    return finish(res);
  }

  ProcessOptions describe_opt;
  describe_opt.timeout_s = 30;
  describe_opt.limits = limits;
  ProcessResult described = run_process({ref.binary, "--describe"}, describe_opt);
  note_process(res.sandbox, described);
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
  plan.probe_initial_outputs = true;  // asked of the original; play() passes its answer to the candidate
  choose_timed_inputs(plan.timing, req.seed_base);
  // Profiling rides in the candidate's main-round process, after its timing
  // (a process of its own would cost a second CUDA context: over 0.5 s).
  ProfileRequest profiled;
  if (req.profile) profiled = profile_request(decl, *req.profile);
  Round round = play(ref.binary, cand_prog, plan, work, "main", req.run_timeout_s, limits, profiled);
  res.sandbox.add(round.sandbox);
  std::string profile_failure;
  if (profiled.size >= 0 && (round.verdict.status == Status::crashed || round.verdict.status == Status::timed_out)) {
    // The verdict must be the one without the profiler: play again unprofiled.
    profile_failure = std::string("profiling failed: the profiled process ") + status_name(round.verdict.status) +
                      "; verdict and timing from an unprofiled run";
    round = play(ref.binary, cand_prog, plan, work, "main-unprofiled", req.run_timeout_s, limits);
    res.sandbox.add(round.sandbox);
    if (round.verdict.status != Status::ok) profile_failure.clear();  // it fails without the profiler too
  }
  HarnessReport profiled_report = round.candidate;

  const std::optional<profile::Ceilings> ceilings =
      round.candidate.device.name.empty() ? std::nullopt : cached_ceilings(round.candidate.device, &res.notes);
  if (round.verdict.status == Status::ok) res.plausibility = assess_plausibility(round.reference, round.timing, ceilings);
  if (round.verdict.status == Status::ok &&
      (round.speedup > req.implausible_speedup || res.plausibility.implausible)) {
    // Too good to believe on one look: more seeds, the validation sizes, a
    // second timing. Only a candidate that survives keeps its speedup.
    Plan again = plan;
    again.runs = correctness_runs(decl.sizes, make_seeds(2 * req.seeds, req.seed_base ? req.seed_base + 1000 : 0),
                                  true);
    choose_timed_inputs(again.timing, req.seed_base ? req.seed_base + 2000 : 0);
    Round second = play(ref.binary, cand_prog, again, work, "reverify", req.run_timeout_s, limits);
    res.sandbox.add(second.sandbox);
    res.reverified = true;
    round.phases.insert(round.phases.end(), second.phases.begin(), second.phases.end());
    round.checks.insert(round.checks.end(), second.checks.begin(), second.checks.end());
    round.process_phases.insert(round.process_phases.end(), second.process_phases.begin(),
                                second.process_phases.end());
    round.verdict = second.verdict;
    if (second.verdict.status == Status::ok) {
      round.timing = second.timing;
      round.speedup = second.speedup;
      res.plausibility = assess_plausibility(second.reference, second.timing, ceilings);
    }
  }
  res.status = round.verdict.status;
  res.detail = round.verdict.detail;
  res.checks = std::move(round.checks);
  res.phase_seconds = std::move(round.phases);
  res.process_phase_seconds = std::move(round.process_phases);
  res.calibration = round.calibration.outputs;
  res.timing = std::move(round.timing);
  res.speedup = res.status == Status::ok ? round.speedup : 0.0;
  if (!profile_failure.empty()) res.profile_note = profile_failure;
  else if (res.status == Status::ok && profiled.size >= 0)
    add_profile(profiled_report, cand_prog.outcome().log, decl.sizes[static_cast<std::size_t>(profiled.size)].label,
                res);
  return finish(res);
}

}  // namespace kernelblaster
