#include "judge/evaluator.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <stdexcept>

#include "common/clock.h"
#include "common/file_util.h"
#include "common/json_fields.h"
#include "common/protocol.h"
#include "common/text.h"
#include "judge/early_look.h"
#include "judge/judge.h"
#include "judge/kernel_speeds.h"
#include "judge/memcheck.h"
#include "judge/object_bound.h"
#include "judge/plan_builder.h"
#include "judge/plausibility.h"
#include "judge/reference_runs.h"
#include "profile/ceilings_cache.h"
#include "runtime/driver_version.h"
#include "profile/kernel_metrics.h"

namespace fs = std::filesystem;

namespace kernelblaster {

double candidate_deadline(double timeout_s, double reference_seconds) {
  return std::min(timeout_s, std::max(kMinCandidateTimeout, kCandidateTimeFactor * reference_seconds));
}

namespace {

void note_process(SandboxRecord& s, const ProcessResult& p) {
  s.add(p.network_isolated, p.resident_limit_bytes, p.peak_resident_bytes, p.strays_killed);
}

struct HarnessRun {
  ProcessResult process;
  bool has_report = false;
  HarnessReport report;
  std::string unreadable_report;  // why a report.json that was written could not be read
  std::string out_dir;
};

// The process's verdict; a report it wrote that could not be read is named.
Verdict judge_run(const HarnessRun& run) {
  Verdict v = judge_process(run.process, run.has_report ? &run.report : nullptr);
  if (!run.has_report && !run.unreadable_report.empty() && v.status != Status::ok)
    v.detail += " (its report.json cannot be read: " + run.unreadable_report + ")";
  return v;
}

// `wrapper`: words run before the harness's command line (a sanitizer).
HarnessRun run_harness(const std::string& binary, const Plan& plan, const std::string& out_dir, double timeout_s,
                       const ProcessLimits& limits, const std::function<bool()>& cancel = {},
                       const std::vector<std::string>& wrapper = {}) {
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
  std::vector<std::string> argv = wrapper;
  argv.insert(argv.end(), {binary, "--plan", plan_path, "--out", out_dir});
  run.process = run_process(argv, opt);
  if (!run.process.timed_out && !run.process.cancelled && fs::exists(out_dir + "/report.json")) {
    try {
      run.report = report_from_json(read_file(out_dir + "/report.json"));
      run.has_report = true;
    } catch (const std::exception& e) {
      run.has_report = false;  // a torn or forged report is as good as none
      run.unreadable_report = json_parse_reason(e.what());
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
  // The binary, or null with `failure` set to why there is none.
  const std::string* binary(Verdict* failure) const {
    const BuildOutcome& b = outcome();
    if (b.ok) return &b.binary;
    *failure = {b.failure, b.first_error.empty() ? "the candidate does not build" : b.first_error};
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

// A round's phases, each timed from the end of the one before.
struct PhaseClock {
  Round& round;
  std::string tag;
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  // What names this round's phases: nothing for the main round.
  std::string prefix() const { return tag == "main" ? "" : tag + " "; }
  void operator()(const std::string& name) {
    round.phases.emplace_back(prefix() + name, seconds_since(t));
    t = std::chrono::steady_clock::now();
  }
};

// The original's side of a round on `plan`: its run kept from an earlier
// evaluation (`kept`, reference_runs.h), else run now, judged, calibrated,
// and kept when sound. Null, with the round's verdict saying why, when there
// is nothing to judge the candidate against.
std::shared_ptr<const ReferenceRun> original_side(const std::string& ref_bin, CandidateProgram& cand_prog,
                                                  const Plan& plan, const std::string& work, const std::string& tag,
                                                  double timeout_s, const ProcessLimits& limits, ReferenceRuns* kept,
                                                  Round& round, PhaseClock& phase) {
  const std::string plan_json = kept ? plan_to_json(plan) : std::string();
  if (kept)
    if (auto run = kept->find(ref_bin, plan_json)) {
      phase("reference reused");
      return run;
    }
  // A candidate that fails to build while the original runs stops it.
  HarnessRun ref = run_harness(ref_bin, plan, kept ? kept->new_run_dir() : work + "/reference/" + tag, timeout_s,
                               limits, [&cand_prog] { return cand_prog.failed_already(); });
  auto run = std::make_shared<ReferenceRun>();
  run->out_dir = ref.out_dir;
  run->remove_dir = kept != nullptr;  // a kept run's directory goes with it; else with the work directory
  phase(EvalResult::kReferenceProcessPhase);
  note_process(round.sandbox, ref.process);
  add_process_phases(round, phase.prefix() + "reference", ref);
  Verdict build_failure;
  if (ref.process.cancelled && !cand_prog.binary(&build_failure)) {
    round.verdict = build_failure;
    return nullptr;
  }
  Verdict rv = judge_run(ref);
  if (rv.status != Status::ok) {
    round.verdict = {Status::reference_failed, "the original source failed: " + std::string(status_name(rv.status)) +
                                                   ": " + rv.detail};
    return nullptr;
  }
  try {
    run->calibration = calibrate(ref.report, ref.out_dir);
  } catch (const std::exception& x) {
    round.verdict = {Status::reference_failed, std::string("unreadable output of the original: ") + x.what()};
    return nullptr;
  }
  phase(EvalResult::kCalibrationPhase);
  round.verdict = judge_reference(run->calibration);
  if (round.verdict.status != Status::ok) return nullptr;
  run->process = std::move(ref.process);
  run->report = std::move(ref.report);
  if (kept) kept->keep(ref_bin, plan_json, run);
  return run;
}

// One plan through both builds and the judges. `profile` (size >= 0) is
// asked of the candidate only, after its timing in the same process.
// `kept` (may be null): the original's runs to reuse and keep.
Round play(const std::string& ref_bin, CandidateProgram& cand_prog, const Plan& plan, const std::string& work,
           const std::string& tag, double timeout_s, const ProcessLimits& limits, ReferenceRuns* kept,
           const ProfileRequest& profile = {}, bool early_look = false) {
  Round round;
  PhaseClock phase{round, tag};
  const std::shared_ptr<const ReferenceRun> original =
      original_side(ref_bin, cand_prog, plan, work, tag, timeout_s, limits, kept, round, phase);
  if (!original) return round;
  const ReferenceRun& ref = *original;
  round.reference = ref.report;
  round.calibration = ref.calibration;
  Verdict build_failure;
  // A candidate still building (calibration ran beside it) is waited for here.
  const bool was_pending = cand_prog.building();
  const std::string* cand_bin = cand_prog.binary(&build_failure);
  if (was_pending) phase("candidate build, after the original's run");
  if (!cand_bin) {
    round.verdict = build_failure;
    return round;
  }
  Plan cand_plan = plan;
  cand_plan.profile = profile;
  cand_plan.probe_initial_outputs = false;
  cand_plan.dump_oracles = false;  // judged against the original's oracles only
  cand_plan.isolate = true;        // nothing of torch's answer within the call's reach (KernelBench)
  cand_plan.keep_initial_outputs = ref.report.kept_initial_outputs;
  const double cand_timeout = candidate_deadline(timeout_s, ref.process.seconds);
  const std::string cand_dir = work + "/candidate/" + tag;
  EarlyLook early(ref.report, ref.out_dir, cand_dir, round.calibration);
  HarnessRun cand = run_harness(*cand_bin, cand_plan, cand_dir, cand_timeout,
                                candidate_process_limits(limits, kept ? kept->dir() : work + "/reference", *cand_bin),
                                [&early, early_look] { return early_look && early.failed(); });
  phase("candidate process");
  note_process(round.sandbox, cand.process);
  round.sandbox.add_candidate(cand.process.view_isolated);
  if (cand.process.cancelled && early.failed()) {
    round.verdict = early.verdict();
    round.checks = early.checks();
    return round;
  }
  add_process_phases(round, phase.prefix() + "candidate", cand);
  if (cand.has_report) round.candidate = cand.report;
  round.verdict = judge_run(cand);
  if (round.verdict.status == Status::timed_out && cand_timeout < timeout_s)
    round.verdict.detail += " (" + std::to_string(kCandidateTimeFactor) + " times the original's " +
                            std::to_string(static_cast<int>(ref.process.seconds + 0.5)) + " s: it cannot win)";
  if (round.verdict.status != Status::ok) return round;
  // A process that changed itself explains what follows (an allocator turned off, no isolation).
  round.verdict = judge_process_changes(ref.report, cand.report);
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_report_follows_plan(cand_plan, cand.report);
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_untimed(cand.report);
  if (round.verdict.status != Status::ok) return round;
  round.verdict = judge_isolation(cand.report);
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
                              runtime::version_major(runtime::kernel_driver_version())};
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

namespace {

BuildOutcome prebuilt(const std::string& binary) {
  BuildOutcome b;
  b.ok = fs::is_regular_file(binary);
  b.binary = binary;
  if (!b.ok) b.first_error = "prebuilt harness " + binary + " is missing";
  return b;
}

// One evaluation and the steps Evaluator::evaluate takes, in order:
// the request → the GPU → the compile settings and the work directory →
// both programs → the harness's declaration → the main round (unprofiled
// again when the profiler broke it) → a second look at a result too good to
// believe → the result. Every path after the builds ends in finish().
class EvaluationRun {
 public:
  EvaluationRun(const EvalRequest& req, const Toolchain& toolchain, GpuProbe& probe)
      : m_req(req), m_toolchain(toolchain), m_probe(probe), m_t_start(std::chrono::steady_clock::now()),
        m_candidate(req.candidate.empty() ? req.source : req.candidate) {}

  EvalResult run() {
    check_request();
    // Every harness process of this evaluation runs under these; a sandbox
    // setting that cannot be read fails here, before any build.
    m_limits = harness_process_limits();
    const GpuInfo gpu = m_probe.probe(m_req.device);
    if (!gpu.present) return without_gpu(gpu);
    m_res.device = gpu.name;
    prepare(gpu);
    if (!build_programs() || !bound_candidate() || !describe()) return finish();
    play_main_round();
    if (too_good_to_believe()) look_again();
    if (m_req.back_to_back && m_req.timing && m_round.verdict.status == Status::ok) time_back_to_back();
    if (m_req.memcheck.wanted && m_round.verdict.status == Status::ok) check_memory();
    return conclude();
  }

 private:
  void check_request() const {
    // Programs built elsewhere (the tuner's pool, KernelBench drivers) need no sources here.
    const bool prebuilt_both = !m_req.reference_binary.empty() &&
                               (!m_req.candidate_binary.empty() || static_cast<bool>(m_req.build_candidate));
    if (!prebuilt_both)
      for (const std::string* p : {&m_req.source, &m_req.harness, &m_candidate})
        if (!fs::is_regular_file(*p)) throw std::runtime_error("no such file: " + *p);
    if (m_req.seeds < 3) throw std::runtime_error("at least 3 seeds are needed, got " + std::to_string(m_req.seeds));
  }

  EvalResult without_gpu(const GpuInfo& gpu) {
    m_res.status = Status::no_gpu;
    m_res.detail = gpu.reason;
    if (held_to_bound()) {
      prepare(gpu);  // the bound needs no GPU: a candidate past it says so anywhere
      const Verdict v = check_candidate_object(m_toolchain, candidate_settings(), m_req.source, m_candidate,
                                               m_work + "/objects", m_req.build_timeout_s);
      if (v.status == Status::forbidden_code || v.status == Status::compile_failed) {
        m_res.status = v.status;
        m_res.detail = v.detail;
      }
      if (m_temporary && !m_req.keep_work_dir) fs::remove_all(m_work);
    }
    if (m_req.candidate_binary.empty() && m_req.build_candidate) {
      // A candidate that does not build says so with or without a GPU.
      BuildOutcome b = m_req.build_candidate();
      m_res.compile_seconds = b.seconds;
      if (!b.ok) {
        m_res.status = b.failure;
        m_res.detail = b.first_error;
      }
    }
    m_res.wall_seconds = seconds_since(m_t_start);
    return m_res;
  }

  // The compile settings for this GPU, and the work directory.
  void prepare(const GpuInfo& gpu) {
    m_settings = m_req.compile;
    if (m_settings.arch.empty()) m_settings.arch = gpu.arch;
    // nvcc runs inside each scratch directory: every path must be absolute.
    for (std::string& d : m_settings.include_dirs) d = fs::absolute(d).string();
    if (!m_req.source.empty()) {
      m_settings.include_dirs.push_back(fs::absolute(m_req.source).parent_path().string());
      // Read from the original, and only when this evaluation builds a harness.
      if (m_req.reference_binary.empty() || m_req.candidate_binary.empty())
        m_settings.libraries = toolkit_libraries(m_req.source, m_settings.include_dirs);
    }
    // Compile-time facts for the profile (registers, spills): ptxas says them
    // in the build log; the binary is the same either way.
    if (m_req.profile) m_settings.flags.insert(m_settings.flags.end(), {"-Xptxas", "-v"});
    m_work = m_req.work_dir;
    m_temporary = m_work.empty();
    if (m_temporary) m_work = make_work_dir("kernelblaster-eval");
    m_work = fs::absolute(m_work).string();
    fs::create_directories(m_work);
  }

  // An untrusted candidate other than the original: its object is checked.
  bool held_to_bound() const { return m_req.untrusted && !m_req.source.empty() && m_candidate != m_req.source; }

  CompileSettings candidate_settings() const {
    CompileSettings cs = m_settings;
    cs.definitions.insert(cs.definitions.end(), m_req.candidate_definitions.begin(), m_req.candidate_definitions.end());
    return cs;
  }

  // Both programs; false (the result says why) when one cannot be had.
  bool build_programs() {
    // An untrusted candidate's objects compile beside the programs.
    if (held_to_bound())
      m_bound = std::async(std::launch::async, [this, cs = candidate_settings()] {
        return check_candidate_object(m_toolchain, cs, m_req.source, m_candidate, m_work + "/objects",
                                      m_req.build_timeout_s);
      });
    auto ref_build = std::async(std::launch::async, [&] {
      if (!m_req.reference_binary.empty()) return prebuilt(m_req.reference_binary);
      return build_harness(m_toolchain, m_settings, m_req.harness, m_req.source, m_work + "/reference",
                           m_req.build_timeout_s);
    });
    // The candidate's build overlaps the original's process when the caller
    // builds it (KernelBench), else it is built here beside the original's.
    m_overlapped = m_req.candidate_binary.empty() && !m_req.reference_binary.empty() && m_req.build_candidate;
    if (m_overlapped)
      m_program.pending = std::async(std::launch::async, m_req.build_candidate).share();
    else
      m_program.built = !m_req.candidate_binary.empty()
                            ? prebuilt(m_req.candidate_binary)
                            : build_harness(m_toolchain, candidate_settings(), m_req.harness, m_candidate,
                                            m_work + "/candidate", m_req.build_timeout_s);
    m_reference = ref_build.get();
    m_res.compile_seconds = std::max(m_reference.seconds, m_program.built.seconds);
    if (!m_reference.ok && m_reference.nvcc_unusable) {
      // Neither side can be judged; naming the original as the culprit would be false.
      return fail(Status::tool_error, m_reference.first_error);
    }
    if (!m_reference.ok)
      return fail(Status::reference_failed, "the original source does not build with its harness: " + m_reference.first_error);
    if (!m_overlapped && !m_program.built.ok) {
      // What the bound found says more than the link error it caused (a
      // definition of a library's symbol clashes with the library).
      if (m_bound.valid()) {
        const Verdict v = m_bound.get();
        if (v.status == Status::forbidden_code) return fail(v.status, v.detail);
      }
      return fail(m_program.built.failure, m_program.built.first_error);
    }
    return true;
  }

  // An untrusted candidate's object, held to the bound before it runs.
  bool bound_candidate() {
    if (!m_bound.valid()) return true;
    const Verdict v = m_bound.get();
    return v.verified() || fail(v.status, v.detail);
  }

  bool fail(Status status, const std::string& detail) {
    m_res.status = status;
    m_res.detail = detail;
    return false;
  }

  // The original's runs to reuse: never for an untrusted candidate, and
  // only on fixed seeds (fresh ones never meet a kept run).
  ReferenceRuns* kept_runs() const {
    return m_req.untrusted || m_req.seed_base == 0 ? nullptr : m_req.reference_runs.get();
  }

  // The harness's declaration (its sizes and outputs), from the original's program.
  bool describe() {
    if (ReferenceRuns* kept = kept_runs())
      if (auto known = kept->description(m_reference.binary)) {
        m_declared = *known;
        return true;
      }
    ProcessOptions opt;
    opt.timeout_s = 30;
    opt.limits = m_limits;
    ProcessResult described = run_process({m_reference.binary, "--describe"}, opt);
    note_process(m_res.sandbox, described);
    try {
      if (!described.ok()) throw std::runtime_error(described.how_it_ended() + ": " + described.output_tail(1));
      m_declared = report_from_json(described.output);
    } catch (const std::exception& x) {
      return fail(Status::harness_error, std::string("the harness cannot describe itself: ") + x.what());
    }
    if (ReferenceRuns* kept = kept_runs()) kept->keep_description(m_reference.binary, m_declared);
    return true;
  }

  Round play_round(const Plan& plan, const std::string& tag, const ProfileRequest& profile = {}) {
    Round r = play(m_reference.binary, m_program, plan, m_work, tag, m_req.run_timeout_s, m_limits, kept_runs(),
                   profile, m_req.screening);
    m_res.sandbox.add(r.sandbox);
    return r;
  }

  void play_main_round() {
    m_plan.runs = correctness_runs(m_declared.sizes, make_seeds(m_req.seeds, m_req.seed_base), m_req.validation_sizes,
                                   m_req.screening);
    m_plan.timing.enabled = m_req.timing;
    m_plan.timing.budget_ms = m_req.budget_ms;
    if (m_req.time_every_size)
      for (std::size_t i = 0; i < m_declared.sizes.size(); ++i) {
        const SizeDecl& size = m_declared.sizes[i];
        const auto& untimed = m_req.untimed_sizes;
        if (!size.validation_only || std::find(untimed.begin(), untimed.end(), size.label) == untimed.end())
          m_plan.timing.sizes.push_back(static_cast<int>(i));
      }
    m_plan.lock_dir = m_req.lock_dir;
    m_plan.device = m_req.device;
    m_plan.probe_initial_outputs = true;  // asked of the original; play() passes its answer to the candidate
    choose_timed_inputs(m_plan.timing, m_req.seed_base, m_req.screening);
    if (m_req.screening)
      m_res.screen_share = screen_share(m_declared.sizes, m_req.seeds, m_req.validation_sizes, timed_size_count());
    // Profiling rides in the candidate's main-round process, after its timing
    // (a process of its own would cost a second CUDA context: over 0.5 s).
    if (m_req.profile) {
      m_profiled = profile_request(m_declared, *m_req.profile);
      // Inputs no earlier evaluation profiled: a candidate that kept what it
      // saw (a disk cache) cannot feed a profile of another run to the KB.
      m_profiled.seed =
          make_seeds(1, m_req.seed_base ? (m_req.seed_base ^ 0x6b62'7072'6f66'0000ull) : 0)[0];
    }
    m_round = play_round(m_plan, "main", m_profiled);
    const Status s = m_round.verdict.status;
    if (m_profiled.size >= 0 && (s == Status::crashed || s == Status::timed_out)) {
      // The verdict must be the one without the profiler: play again unprofiled.
      m_profile_failure = std::string("profiling failed: the profiled process ") + status_name(s) +
                          "; verdict and timing from an unprofiled run";
      m_round = play_round(m_plan, "main-unprofiled");
      if (m_round.verdict.status != Status::ok) m_profile_failure.clear();  // it fails without the profiler too
    }
    m_profiled_report = m_round.candidate;
    m_ceilings = m_round.candidate.device.name.empty() ? std::nullopt
                                                        : cached_ceilings(m_round.candidate.device, &m_res.notes);
    if (m_round.verdict.status == Status::ok)
      m_res.plausibility = assess_plausibility(m_round.reference, m_round.timing, m_ceilings);
  }

  std::size_t timed_size_count() const {
    if (!m_req.timing) return 0;
    if (!m_plan.timing.sizes.empty()) return m_plan.timing.sizes.size();
    return static_cast<std::size_t>(
        std::count_if(m_declared.sizes.begin(), m_declared.sizes.end(), [](const SizeDecl& s) { return !s.validation_only; }));
  }

  bool too_good_to_believe() const {
    return m_round.verdict.status == Status::ok &&
           (m_round.speedup > m_req.implausible_speedup || m_res.plausibility.implausible);
  }

  // More seeds, the validation sizes, a second timing: only a candidate that
  // survives keeps its speedup.
  void look_again() {
    Plan again = m_plan;
    again.runs = correctness_runs(m_declared.sizes,
                                  make_seeds(2 * m_req.seeds, m_req.seed_base ? m_req.seed_base + 1000 : 0), true);
    choose_timed_inputs(again.timing, m_req.seed_base ? m_req.seed_base + 2000 : 0);
    Round second = play_round(again, "reverify");
    m_res.reverified = true;
    m_round.phases.insert(m_round.phases.end(), second.phases.begin(), second.phases.end());
    m_round.checks.insert(m_round.checks.end(), second.checks.begin(), second.checks.end());
    m_round.process_phases.insert(m_round.process_phases.end(), second.process_phases.begin(),
                                  second.process_phases.end());
    m_round.verdict = second.verdict;
    if (second.verdict.status == Status::ok) {
      m_round.timing = second.timing;
      m_round.speedup = second.speedup;
      m_res.plausibility = assess_plausibility(second.reference, second.timing, m_ceilings);
    }
  }

  // The timing again as a program that calls the launcher in a loop sees
  // it: back to back, the L2 warm from the call before, enough calls a run
  // that the launches queue up behind each other (a kernel of a few
  // microseconds can be faster alone and slower in a stream of its own
  // launches: the cuda-samples transpose, 1.10x alone, 0.97x by its own
  // timing). The lower speedup is the one kept.
  void time_back_to_back() {
    Plan again = m_plan;
    // A timing round: the main round checked every run already, and the
    // timed calls' outputs are checked here as there. Its runs again cost
    // SGEMM_CUDA's kernel-10 look 8.5 of 42 s on an H200 (six seeds, six
    // sizes up to 4096). A KernelBench driver needs runs in every plan.
    if (m_round.reference.harness != kKernelBenchHarness) again.runs.clear();
    again.timing.flush_l2 = false;
    again.timing.calls_per_run = back_to_back_calls(m_round.reference, m_declared.sizes.size());
    // The repeat probe is the flushed round's: with the L2 warm, repeated
    // inputs stay in it while fresh ones are written anew, so an honest
    // kernel is faster on them (the cuda-samples transpose: 5.5 against
    // 8.1 us a call) and the probe would call it a cache.
    again.timing.repeat_probe_runs = 0;
    Round second = play_round(again, "back-to-back");
    m_round.phases.insert(m_round.phases.end(), second.phases.begin(), second.phases.end());
    m_round.process_phases.insert(m_round.process_phases.end(), second.process_phases.begin(),
                                  second.process_phases.end());
    if (second.verdict.status != Status::ok) {
      m_round.verdict = second.verdict;
      return;
    }
    m_res.notes.push_back("back to back with the L2 warm (" + calls_text(again.timing.calls_per_run, m_round.reference) +
                          "): " + speedup_text(second.speedup) + " (one call, L2 flushed: " +
                          speedup_text(m_round.speedup) + ")");
    // The result keeps one round's timing; a kernel the other round found
    // slower is said all the same.
    m_res.flushed_speedup = m_round.speedup;
    m_res.back_to_back_speedup = second.speedup;
    m_res.launch_paced = launch_paced_text(second.timing);
    if (!m_res.launch_paced.empty()) m_res.notes.push_back("paced by its launches: " + m_res.launch_paced);
    const bool second_kept = second.speedup < m_round.speedup;
    const std::string dropped = slower_kernel(second_kept ? m_round.timing : second.timing);
    if (!dropped.empty())
      m_dropped_round_slower = (second_kept ? "with the L2 flushed " : "back to back ") + dropped;
    if (second_kept) {
      m_round.timing = second.timing;
      m_round.speedup = second.speedup;
    }
  }

  // The candidate's program once under compute-sanitizer's memcheck: one
  // seed per size, the validation sizes too, no timing.
  void check_memory() {
    const auto t = std::chrono::steady_clock::now();
    if (m_req.memcheck.tool.empty()) {
      m_res.memcheck = "not checked under compute-sanitizer's memcheck: " + m_req.memcheck.missing;
      return;
    }
    Plan plan = m_plan;
    plan.runs = correctness_runs(m_declared.sizes, make_seeds(1, m_req.seed_base ? m_req.seed_base + 3000 : 0), true);
    plan.timing.enabled = false;
    plan.profile = {};
    plan.probe_initial_outputs = false;
    plan.dump_oracles = false;
    plan.isolate = true;
    plan.keep_initial_outputs = m_round.reference.kept_initial_outputs;
    Verdict no_binary;
    const std::string* binary = m_program.binary(&no_binary);
    const std::string log = m_work + "/memcheck.log";
    const std::string hidden = kept_runs() ? kept_runs()->dir() : m_work + "/reference";
    HarnessRun run = run_harness(*binary, plan, m_work + "/memcheck", kMemcheckTimeoutSeconds,
                                 candidate_process_limits(m_limits, hidden, *binary), {},
                                 memcheck_command(m_req.memcheck.tool, log));
    note_process(m_res.sandbox, run.process);
    const double seconds = seconds_since(t);
    m_round.phases.emplace_back("memcheck", seconds);
    const ProcessResult& p = run.process;
    const MemcheckFinding found = read_memcheck_log(fs::exists(log) ? read_file(log) : std::string(),
                                                    p.timed_out || p.signaled ? -1 : p.exit_code);
    m_res.memcheck = memcheck_line(run, found, plan.runs.size(), seconds);
    if (found.errors) m_round.verdict = {Status::out_of_bounds, m_res.memcheck};
  }

  static std::string memcheck_line(const HarnessRun& run, const MemcheckFinding& found, std::size_t runs,
                                   double seconds) {
    const ProcessResult& p = run.process;
    if (found.errors)
      return "compute-sanitizer's memcheck: " + (found.first.empty() ? std::string("errors") : found.first) +
             (found.count > 1 ? " (" + std::to_string(found.count) + " errors)" : "");
    if (p.timed_out)
      return "not checked under compute-sanitizer's memcheck: it did not finish in " +
             std::to_string(static_cast<int>(kMemcheckTimeoutSeconds)) + " s";
    if (!p.ok() || !run.has_report || run.report.error.kind != HarnessErrorKind::none)
      return "not checked under compute-sanitizer's memcheck: the program did not run under it (" + p.how_it_ended() +
             (run.report.error.message.empty() ? "" : ": " + run.report.error.message) + ")";
    if (!found.summarized)
      return "not checked under compute-sanitizer's memcheck: it wrote no error summary";
    return "compute-sanitizer's memcheck: no invalid access in " + std::to_string(runs) + (runs == 1 ? " run (" : " runs (") +
           fixed_point(seconds, 1) + " s)";
  }

  EvalResult conclude() {
    m_res.status = m_round.verdict.status;
    m_res.detail = m_round.verdict.detail;
    m_res.checks = std::move(m_round.checks);
    m_res.phase_seconds = std::move(m_round.phases);
    m_res.process_phase_seconds = std::move(m_round.process_phases);
    m_res.calibration = m_round.calibration.outputs;
    m_res.timing = std::move(m_round.timing);
    m_res.slower_kernel = slower_kernel(m_res.timing);
    if (m_res.slower_kernel.empty()) m_res.slower_at_a_size = kernel_slower_at_a_size(m_res.timing);
    m_res.other_sizes = other_sizes_text(m_res.timing);
    if (!m_dropped_round_slower.empty())
      m_res.slower_kernel += (m_res.slower_kernel.empty() ? "" : "; ") + m_dropped_round_slower;
    m_res.speedup = m_res.status == Status::ok ? m_round.speedup : 0.0;
    if (!m_profile_failure.empty())
      m_res.profile_note = m_profile_failure;
    else if (m_res.status == Status::ok && m_profiled.size >= 0)
      add_profile(m_profiled_report, m_program.outcome().log,
                  m_declared.sizes[static_cast<std::size_t>(m_profiled.size)].label, m_res);
    return finish();
  }

  EvalResult finish() {
    if (m_bound.valid()) m_bound.wait();  // its compiles write under the work directory
    // Time spent building before anything ran is not evaluation time; an
    // overlapped build is, where the evaluation waited for it.
    m_res.eval_seconds = seconds_since(m_t_start) - m_res.compile_seconds;
    m_res.wall_seconds = seconds_since(m_t_start);
    m_res.compile_seconds = std::max(m_res.compile_seconds, m_program.outcome().seconds);  // waits for a pending build
    if (m_temporary && !m_req.keep_work_dir) fs::remove_all(m_work);
    else m_res.notes.push_back("work directory: " + m_work);
    return m_res;
  }

  const EvalRequest& m_req;
  const Toolchain& m_toolchain;
  GpuProbe& m_probe;
  const std::chrono::steady_clock::time_point m_t_start;
  const std::string m_candidate;
  ProcessLimits m_limits;
  EvalResult m_res;
  CompileSettings m_settings;
  std::string m_work;
  bool m_temporary = false, m_overlapped = false;
  BuildOutcome m_reference;
  CandidateProgram m_program;
  HarnessReport m_declared;
  Plan m_plan;
  ProfileRequest m_profiled;
  Round m_round;
  HarnessReport m_profiled_report;
  std::optional<profile::Ceilings> m_ceilings;
  std::string m_profile_failure;
  std::future<Verdict> m_bound;  // an untrusted candidate's object check, while the programs build
  std::string m_dropped_round_slower;  // a slower kernel of the timing round the result does not keep
};

}  // namespace

EvalResult Evaluator::evaluate(const EvalRequest& req) { return EvaluationRun(req, m_toolchain, m_probe).run(); }

}  // namespace kernelblaster
