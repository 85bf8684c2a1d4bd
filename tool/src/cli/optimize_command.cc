// kernelblaster optimize: the MAIC-RL loop on one native source + harness,
// with an LLM writing the rewrites and the engine judging them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/report.h"
#include "common/file_util.h"
#include "judge/gpu_probe.h"
#include "judge/manifest.h"
#include "kernelbench/problem.h"
#include "kernelbench/source_scan.h"
#include "kb/kb_store.h"
#include "llm/client.h"
#include "optimize/engine_judge.h"
#include "optimize/kernelbench_judge.h"
#include "optimize/loop.h"
#include "optimize/run_record.h"
#include "profile/gpu_helper.h"
#include "rewrite/code_blocks.h"
#include "rewrite/kernel_unit.h"
#include "tuner/harness_reading.h"
#include "tuner/policy_choice.h"
#include "harness/launcher_scan.h"
#include "common/launcher_mask.h"
#include "common/text.h"

namespace kernelblaster {

// The source's host launchers, and those of them a harness names.
struct HarnessLaunchers {
  std::vector<std::string> all, named;
  std::string list() const;  // the named ones (else all) joined by commas; "none"
};
HarnessLaunchers harness_launchers_of(const std::string& source, const std::string& harness,
                                      const std::vector<std::string>& include_dirs,
                                      const std::vector<std::string>& definitions);

namespace {

// report.html and report.md of a run directory (or of a directory of them):
// ", report in DIR/report.html", or what kept it from being written. A run's
// artifacts stand without it.
std::string write_report(const std::string& dir) {
  try {
    report::Report r = report::make_report(dir);
    write_file_atomic(r.html_path, report::to_html(r.document));
    write_file_atomic(r.markdown_path, report::to_markdown(r.document));
    return ", report in " + r.html_path;
  } catch (const std::exception& x) {
    return " (no report: " + std::string(x.what()) + ")";
  }
}

namespace fs = std::filesystem;

const char* kHelp = R"(usage: kernelblaster optimize --source FILE.cu --harness HARNESS.cu [--launcher NAME] [options] [LLM settings]
       kernelblaster optimize --kernelbench DIR [options] [LLM settings]

Rewrites the kernel with an LLM, one technique at a time: the state comes
from the original's profile and the KB's rules, the policy chooses a
technique from the KB's statistics for that state and this GPU, the model
writes the code (with fix attempts fed by the compiler, the static checks
and the engine), the engine judges every candidate against the original,
and the KB learns every step's outcome. The fastest verified kernel is
looked at again with fresh seeds before it is kept. Progress goes to stderr.

  --kernelbench DIR     a KernelBench-CUDA problem (init.cu + driver.cpp), or a
                        directory of them (a level, the dataset): one result
                        directory per problem under --out, problems already
                        done are skipped (resumable), and --out/summary.md
                        tabulates them
  --shard I/N           with a directory: only problem I, I+N, I+2N, ... of its
                        sorted list, for job I of an array of N (0-based);
                        auto/N reads I from SLURM_ARRAY_TASK_ID (less
                        SLURM_ARRAY_TASK_MIN) or JOB_COMPLETION_INDEX. The
                        shards share --out (each problem its own directory,
                        the table summary.shard-I-of-N.md); afterwards
                        `kernelblaster report OUT` gives one report over them
                        all, and `kernelblaster kb merge` one KB of the
                        shards' --kb files
  --unit kernel|source  what one rewrite changes (default kernel): the kernel the
                        original's GPU time goes to, wherever the project
                        defines it (the source, or a header it includes from
                        --project-root), shown with the functions that launch
                        it and the harness's shapes, the model replying with its
                        new definition; the whole source where the project has
                        one kernel and it is in the source. source: always the
                        whole source
  --kernels N           with --unit kernel: how many kernels, in the order of the
                        original's GPU time, one run rewrites one after another,
                        each round starting from what the earlier ones kept
                        (default 1)
  --list                with --source (and -I, --manifest, --project-root): list the
                        kernels a rewrite may take one at a time, where each is
                        defined, its size and the functions that launch it, and
                        the size of the whole source as one text; no GPU, no
                        LLM (--json too)
  --project-root DIR    the project's own tree: headers under it are the
                        project's to rewrite (default: a build manifest's
                        source tree, else the git work tree that holds the
                        source, else the source's directory)
  --launcher NAME       the host function the harness calls (it keeps its signature);
                        default: the source's one host launcher that the harness
                        names; a harness of several (a recorded one) needs none
                        while a kernel is rewritten alone (--unit kernel)
  --contract TEXT       what else must not change, in words, for the prompt
  --manifest FILE       compile settings as JSON or a build's manifest; a build's
                        LLM settings in it apply under the environment and flags
  -I DIR, -D NAME[=V]   include directories and definitions for nvcc
  --arch sm_XY          GPU architecture (default: the GPU's own)
  --out DIR             the run's artifacts (default: kernelblaster-optimize/<name>)
  --write FILE          where the kept kernel goes (one source only; written
                        only when one was kept)
  --trajectories N      independent trajectories from the original (default 2)
  --steps N             steps per trajectory (default 3)
  --parallel N          trajectories in flight at once (default 1): their LLM
                        requests overlap, their judgements take turns, and the
                        KB learns from each round in trajectory order
  --fix-attempts N      fix attempts after a step's first (default 2)
  --review-every N      steps between the KB's reviews by the model (notes,
                        prediction factors, new techniques and states,
                        deprecations; validated before use); 0: none (default 4)
  --min-gain X          a step becomes the next base, and the winner is kept,
                        only when at least this much faster (default 0.02)
  --stop-at-bound X     a kernel at this share of its speed of light or more
                        (its FLOP rate or bandwidth against this GPU's measured
                        roof at its arithmetic intensity) is not worked on: the
                        original ends the run before any request, a base its
                        trajectory; 0: never (default 0.9)
  --second-opinion      ask the model whether the kept kernel computes what the
                        original does (advice in the report; the engine decides)
  --seed N              the policy's random choices (default 0)
  --policy FILE.lua     selection policy (default: the built-in one)
  --kb FILE             the KB to read and to teach (default: KERNELBLASTER_KB
                        or ~/.cache/kernelblaster/kb.json, over the seed KB)
  --torch-prefix DIR    libtorch for KernelBench drivers (default:
                        KERNELBLASTER_TORCH_PREFIX, then python3's torch)
  --device N            the GPU to measure on (default 0)
  --seeds N             fresh seeds per evaluation (default 3)
  --quiet               no progress lines
  --json                print summary.json on stdout (one source)

LLM settings are those of `kernelblaster llm --help` (--provider, --model,
--base-url, --cache record|replay, --max-run-usd, ...), each also a
KERNELBLASTER_LLM_* variable. Without a model configured nothing is sent:
`kernelblaster tune` searches a kernel's tunables without an LLM.

Exit status: 0 a faster kernel was kept (for a directory of problems: the
run finished), 1 none was (one line says why), 2 bad usage, 77 no GPU on
this machine.
)";

bool g_quiet = false;
void print_line(const std::string& s) {
  if (!g_quiet) std::fprintf(stderr, "%s\n", s.c_str());
}

int whole_number(const Args& args, const std::string& key, int fallback, int least) {
  double v = args.number(key, fallback);
  if (v < least || v != static_cast<int>(v))
    throw UsageError(key + " needs a whole number >= " + std::to_string(least));
  return static_cast<int>(v);
}

// What every source of one invocation shares.
struct Settings {
  optimize::LoopOptions options;
  std::string manifest, arch, write, policy_path, kb_path, torch_prefix, project_root;
  bool whole_source = false;  // --unit source
  std::vector<std::string> include_dirs, definitions;
  int device = 0, seeds = 3;
};

// One kernel to optimize: a native source + harness, or a KernelBench problem.
struct Job {
  std::string name;         // for messages, per-kernel caps and the summary table
  std::string source;       // the original
  std::string harness;      // native only
  std::string problem_dir;  // KernelBench only
  std::string launcher, contract, out;
  std::string invalid;      // why the problem cannot be read; empty when it can
};

// How a problem of a run ended; named only in its line and the summary table.
enum class JobVerdict { kept, not_kept, failed, done_before_kept, done_before_not_kept, done_before_unreadable };

struct JobResult {
  int exit_code = 2;
  JobVerdict verdict = JobVerdict::failed;
  std::string why;     // why nothing was kept, or why it failed
  double speedup = 1.0;
  int steps = 0, verified = 0;
  double cost_usd = 0;
};

// The project a source belongs to: the git work tree holding it, else its
// directory.
std::string default_project_root(const std::string& source) {
  const fs::path dir = fs::absolute(source).parent_path();
  std::error_code ec;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return p.string();
    if (p == p.parent_path()) break;
  }
  return dir.string();
}

// The kernels the loop may rewrite one at a time, each with the shapes the
// harness runs (one line per size); none when the source cannot be read so.
std::vector<rewrite::KernelUnit> kernel_units_of(const Job& job, const Settings& st,
                                                 const std::vector<std::string>& include_dirs) {
  std::string root = st.project_root;
  if (root.empty() && !st.manifest.empty()) root = read_manifest(st.manifest).project;  // the build's source tree
  if (root.empty()) root = default_project_root(job.source);
  std::vector<rewrite::KernelUnit> units;
  try {
    units = rewrite::kernel_units(job.source, include_dirs, root);
  } catch (const std::exception& e) {
    print_line("[optimize] " + job.name + ": the whole source is rewritten (its kernels cannot be read: " + e.what() +
               ")");
    return {};
  }
  if (job.harness.empty()) return units;
  const std::string harness = read_file(job.harness);
  std::vector<rewrite::ShapeLine> sizes;
  for (const tuner::HarnessSize& size : tuner::labelled_harness_sizes(harness)) sizes.push_back({size.label, size.dims});
  const std::vector<std::string> called = harness_launchers(harness);
  for (rewrite::KernelUnit& u : units) u.shapes = rewrite::unit_shapes(sizes, called, u);
  return units;
}

JobResult run_job(const Job& job, const Settings& st, llm::Client& client, GpuProbe& probe, const GpuInfo& gpu,
                  const std::string& self_exe) {
  JobResult jr;
  const auto t0 = std::chrono::steady_clock::now();
  const WorkDir work("kernelblaster-optimize");
  const std::string& scratch = work.path();

  optimize::KernelTarget target;
  target.kernel = job.name;
  target.source = read_file(job.source);
  target.launcher = job.launcher;
  target.contract = job.contract;
  target.gpu = gpu.name;
  std::unique_ptr<optimize::CandidateJudge> judge;
  if (job.problem_dir.empty()) {
    EngineTarget jt;
    jt.source = fs::absolute(job.source).string();
    jt.harness = fs::absolute(job.harness).string();
    jt.compile = resolve_compile_settings(st.manifest, st.arch, st.include_dirs, st.definitions, gpu.arch, jt.source);
    jt.work_dir = scratch;
    jt.lock_dir = default_lock_dir();
    jt.seeds = st.seeds;
    target.arch = jt.compile.arch;
    if (!st.whole_source) target.units = kernel_units_of(job, st, jt.compile.include_dirs);
    judge = std::make_unique<optimize::EngineJudge>(find_toolchain(self_exe), probe, jt, st.device);
  } else {
    optimize::KernelBenchJudgeTarget jt;
    jt.problem_dir = fs::absolute(job.problem_dir).string();
    jt.arch = st.arch.empty() ? gpu.arch : st.arch;
    jt.torch_prefix = st.torch_prefix;
    jt.work_dir = scratch;
    jt.lock_dir = default_lock_dir();
    jt.device = st.device;
    jt.seeds = st.seeds;
    target.arch = jt.arch;
    judge = std::make_unique<optimize::KernelBenchJudge>(find_toolchain(self_exe), probe, jt);
  }

  kb::KnowledgeBase knowledge = kb::load_for_run(self_exe, st.kb_path);
  if (knowledge.techniques.empty()) throw std::runtime_error("the KB has no techniques to choose from");
  const kb::KnowledgeBase before = knowledge;
  tuner::PolicyChoice policy = tuner::choose_policy(st.policy_path, print_line);

  optimize::Loop loop(target, st.options, knowledge, *policy.policy, client, *judge, print_line);
  optimize::RunResult result = loop.run();
  // One locked, atomic write of the user's KB: every step's outcome and every applied review.
  bool reviewed = false;
  for (const optimize::Review& rv : result.reviews) reviewed = reviewed || rv.applied;
  if (!result.outcomes.empty() || reviewed)
    kb::update_kb(st.kb_path, [&](kb::KnowledgeBase& user) {
      for (const kb::Outcome& o : result.outcomes) kb::record(user, o);
      for (const optimize::Review& rv : result.reviews)
        if (rv.applied) optimize::apply_knowledge_update(user, rv.update, target.arch);
    });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  optimize::write_run_artifacts(job.out, target, result, before, knowledge, seconds);
  if (result.improved && !st.write.empty()) write_file(st.write, result.best_source);

  jr.steps = static_cast<int>(result.steps.size());
  for (const optimize::Step& s : result.steps)
    for (const optimize::Attempt& a : s.attempts) jr.verified += a.end == AttemptEnd::verified;
  jr.cost_usd = result.llm_cost_usd;
  if (result.improved) {
    jr.exit_code = 0;
    jr.verdict = JobVerdict::kept;
    jr.speedup = result.confirmation.speedup;
  } else {
    jr.exit_code = 1;
    jr.why = result.stop.text();
    jr.verdict = JobVerdict::not_kept;
  }
  print_line("[optimize] " + job.name + ": artifacts in " + job.out + write_report(job.out));
  return jr;
}

Job kernelbench_job(const std::string& dir, const std::string& root, const std::string& out_root, bool single) {
  kernelbench::Problem problem;
  std::string why;
  Job job;
  const std::string rel = single ? fs::path(dir).filename().string() : kernelbench::problem_name(dir, root);
  job.name = rel;
  job.out = single ? out_root : out_root + "/" + rel;
  if (!kernelbench::load_problem(dir, &problem, &why)) {
    job.invalid = why;
    return job;
  }
  job.source = problem.init_path;
  job.problem_dir = dir;
  job.launcher = problem.launcher.name;
  job.contract = "the launcher keeps the declaration driver.cpp uses: " +
                 problem.driver_source.substr(problem.launcher.begin, problem.launcher.end - problem.launcher.begin) +
                 "; the driver passes torch tensors' device pointers and reads every output after the call";
  return job;
}

// The row of a problem an earlier run finished, from the summary.json it left.
JobResult earlier_result(const std::string& summary_path) {
  JobResult r;
  r.exit_code = 1;
  nlohmann::json j = nlohmann::json::parse(read_file(summary_path), nullptr, false);
  if (!j.is_object()) {
    r.verdict = JobVerdict::done_before_unreadable;
    return r;
  }
  auto number = [&](const nlohmann::json& v, double fallback) { return v.is_number() ? v.get<double>() : fallback; };
  bool improved = j.value("improved", false);
  r.verdict = improved ? JobVerdict::done_before_kept : JobVerdict::done_before_not_kept;
  r.exit_code = improved ? 0 : 1;
  if (improved) r.speedup = number(j.value("confirmed_speedup", nlohmann::json()), 1.0);
  r.steps = static_cast<int>(number(j.value("steps", nlohmann::json()), 0));
  r.verified = static_cast<int>(number(j.value("verified_attempts", nlohmann::json()), 0));
  if (j.contains("llm") && j["llm"].is_object()) r.cost_usd = number(j["llm"].value("cost_usd", nlohmann::json()), 0);
  return r;
}

// The summary table's column and the run's line: "kept", "not kept: <why>",
// "failed: <why>", "done before: kept", ...
std::string verdict_text(const JobResult& r) {
  switch (r.verdict) {
    case JobVerdict::kept: return "kept";
    case JobVerdict::not_kept: return "not kept: " + r.why;
    case JobVerdict::failed: return "failed: " + r.why;
    case JobVerdict::done_before_kept: return "done before: kept";
    case JobVerdict::done_before_not_kept: return "done before: not kept";
    case JobVerdict::done_before_unreadable: return "done before (its summary.json cannot be read)";
  }
  return "failed: " + r.why;
}

void write_table(const std::string& out_root, const std::vector<std::pair<Job, JobResult>>& rows,
                 const std::string& file_name) {
  // The page of the directory so far (kernelblaster report), refreshed with the table.
  (void)write_report(out_root);
  std::string md = "| problem | result | speedup | steps | verified attempts | LLM cost |\n|---|---|---|---|---|---|\n";
  char buf[512];
  for (const auto& [job, r] : rows) {
    std::snprintf(buf, sizeof buf, "| %s | %s | %.3fx | %d | %d | $%.4f |\n", job.name.c_str(),
                  verdict_text(r).substr(0, 120).c_str(), r.speedup, r.steps, r.verified, r.cost_usd);
    md += buf;
  }
  write_file(out_root + "/" + file_name, md);
}

// A shard's table beside the others' (the directory's report covers them all).
std::string table_name(const kernelbench::Shard& shard) {
  return shard.all() ? "summary.md" : "summary.shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) + ".md";
}

// What the command line asks for.
struct OptimizeCall {
  Settings st;
  std::vector<Job> jobs;
  std::string kernelbench_root, out_root;
  kernelbench::Shard shard;  // --shard: this job's share of the problems
  bool json = false;
  llm::LlmConfig config;
};

// Why --launcher must be given: the harness names none of the source's
// launchers, or several where the whole source is rewritten.
std::string launcher_required(const Job& job, const HarnessLaunchers& found) {
  if (found.named.empty())
    return "--launcher is required: no host launcher of " + job.source + " is named in " + job.harness +
           " (launchers: " + found.list() + ")";
  return "--launcher is required with --unit source: " + job.harness + " names several launchers of " + job.source +
         " (" + found.list() + ")";
}

// --source, --harness, --launcher: one native job.
Job native_job(const Args& args) {
  Job job;
  job.source = args.value("--source");
  job.harness = args.value("--harness");
  job.launcher = args.value("--launcher");
  if (job.source.empty()) throw UsageError("--source (or --kernelbench) is required");
  if (job.harness.empty()) throw UsageError("--harness is required");
  for (const std::string* p : {&job.source, &job.harness})
    if (!fs::is_regular_file(*p)) throw UsageError("no such file: " + *p);
  std::string called = job.launcher;  // the launchers the harness calls, in words
  if (job.launcher.empty()) {
    CompileSettings cs;
    if (!args.value("--manifest").empty()) cs = settings_from_manifest(args.value("--manifest"));
    for (const std::string& d : args.values("-I")) cs.include_dirs.push_back(d);
    for (const std::string& d : args.values("-D")) cs.definitions.push_back(d);
    // A kernel rewritten alone leaves every launcher as written: a harness
    // of several launchers judges it with no launcher named.
    const bool kernels_alone = args.value("--unit", "kernel") == "kernel";
    const HarnessLaunchers found = harness_launchers_of(job.source, job.harness, cs.include_dirs, cs.definitions);
    if (found.named.size() == 1) job.launcher = found.named.front();
    else if (found.named.size() < 2 || !kernels_alone) throw UsageError(launcher_required(job, found));
    else called = found.list();
  }
  if (!job.launcher.empty() && !rewrite::defines_function(read_file(job.source), job.launcher))
    throw UsageError(job.source + " defines no function named " + job.launcher + " (--launcher)");
  job.name = fs::path(job.source).filename().string();
  job.contract = args.value(
      "--contract", job.launcher.empty()
                        ? "the launchers " + called + " keep their signatures, read their inputs and write every output"
                                                      " as the original does"
                        : "the launcher " + called + " keeps its signature, reads its inputs and writes every output as"
                                                     " the original does");
  job.out = args.value("--out", "kernelblaster-optimize/" + fs::path(job.source).stem().string());
  return job;
}

// --kernelbench DIR: a job per problem under it.
void kernelbench_jobs(const Args& args, OptimizeCall& c) {
  const std::string& kernelbench_root = c.kernelbench_root;
  std::string& out_root = c.out_root;
  std::vector<Job>& jobs = c.jobs;
  if (!args.value("--source").empty() || !args.value("--harness").empty() || !args.value("--launcher").empty())
    throw UsageError("--kernelbench takes the place of --source, --harness and --launcher");
  if (!fs::is_directory(kernelbench_root)) throw UsageError("no such directory: " + kernelbench_root);
  out_root = args.value("--out", "kernelblaster-optimize/" + fs::path(kernelbench_root).filename().string());
  std::vector<std::string> dirs = kernelbench::problem_directories(kernelbench_root);
  if (dirs.empty()) throw UsageError(kernelbench_root + " holds no KernelBench problem (no driver.cpp)");
  if (!args.value("--shard").empty()) {
    try {
      c.shard = kernelbench::parse_shard(args.value("--shard"), [](const char* n) { return std::getenv(n); });
    } catch (const std::invalid_argument& x) {
      throw UsageError(x.what());
    }
    dirs = kernelbench::shard_of(dirs, c.shard);
    if (dirs.empty()) throw UsageError("shard " + c.shard.text() + " of " + kernelbench_root + " holds no problem");
  }
  // A shard's problems keep their directories under the shared output root,
  // so the jobs of an array write disjoint parts of one tree.
  const bool single = dirs.size() == 1 && c.shard.all();
  for (const std::string& d : dirs) jobs.push_back(kernelbench_job(d, kernelbench_root, out_root, single));
  if (jobs.size() == 1 && !jobs[0].invalid.empty()) throw UsageError(jobs[0].invalid);
}

// The loop's settings, shared by every job.
void read_settings(const Args& args, OptimizeCall& c) {
  Settings& st = c.st;
  const std::vector<Job>& jobs = c.jobs;
  st.manifest = args.value("--manifest");
  st.include_dirs = args.values("-I");
  st.definitions = args.values("-D");
  st.arch = args.value("--arch");
  st.write = args.value("--write");
  if (!st.write.empty() && jobs.size() > 1) throw UsageError("--write takes one source, not a directory of problems");
  st.torch_prefix = args.value("--torch-prefix");
  const std::string unit = args.value("--unit", "kernel");
  if (unit != "kernel" && unit != "source") throw UsageError("--unit is kernel or source, got " + unit);
  st.whole_source = unit == "source";
  st.project_root = args.value("--project-root");
  st.options.kernels = whole_number(args, "--kernels", 1, 1);
  st.options.trajectories = whole_number(args, "--trajectories", 2, 1);
  st.options.steps = whole_number(args, "--steps", 3, 1);
  st.options.fix_attempts = whole_number(args, "--fix-attempts", 2, 0);
  st.options.review_every = whole_number(args, "--review-every", 4, 0);
  st.options.second_opinion = args.flag("--second-opinion");
  st.options.parallel = whole_number(args, "--parallel", 1, 1);
  st.options.min_gain = args.number("--min-gain", 0.02);
  if (st.options.min_gain < 0) throw UsageError("--min-gain must be >= 0");
  st.options.bound_stop = args.number("--stop-at-bound", 0.9);
  if (st.options.bound_stop < 0 || st.options.bound_stop > 1)
    throw UsageError("--stop-at-bound must be a share from 0 to 1, got " + args.value("--stop-at-bound"));
  st.options.seed = static_cast<std::uint64_t>(whole_number(args, "--seed", 0, 0));
  st.policy_path = args.value("--policy");
  st.kb_path = !args.value("--kb").empty() ? args.value("--kb") : kb::default_user_kb_path();
  st.device = whole_number(args, "--device", 0, 0);
  st.seeds = whole_number(args, "--seeds", 3, 3);
  st.options.confirm_seeds = std::max(5, st.seeds);
}

void read_llm_config(const Args& args, OptimizeCall& c) {
  const Settings& st = c.st;
  llm::LlmConfig& config = c.config;
  // A build's LLM settings (the CMake cache, through the manifest), under
  // the environment and the flags.
  if (!st.manifest.empty())
    for (const auto& [name, value] : read_manifest(st.manifest).llm) try {
        llm::apply_setting(config, name, value);
      } catch (const std::invalid_argument& x) {
        throw std::invalid_argument("manifest " + st.manifest + ": " + x.what());
      }
  llm::config_from_env_over(config, [](const char* name) { return std::getenv(name); });
  for (const std::string& name : llm::setting_names())
    if (std::string v = args.value("--" + name, "\x01"); v != "\x01") llm::apply_setting(config, name, v);
}

OptimizeCall parse_call(const CommandArgs& argv) {
  std::set<std::string> valued = {"--source", "--harness", "--launcher", "--contract", "--manifest", "-I", "-D",
                                  "--arch", "--out", "--write", "--trajectories", "--steps", "--fix-attempts",
                                  "--min-gain", "--seed", "--policy", "--kb", "--device", "--seeds", "--review-every",
                                  "--kernelbench", "--torch-prefix", "--parallel", "--shard", "--stop-at-bound",
                                  "--unit", "--project-root", "--kernels"};
  for (const std::string& name : llm::setting_names()) valued.insert("--" + name);
  OptimizeCall c;
  Args args(argv, valued, {"--quiet", "--json", "--second-opinion"});
  c.json = args.flag("--json");
  g_quiet = args.flag("--quiet");
  c.kernelbench_root = args.value("--kernelbench");
  if (c.kernelbench_root.empty() && !args.value("--shard").empty())
    throw UsageError("--shard spreads a dataset: it goes with --kernelbench DIR");
  if (c.kernelbench_root.empty()) c.jobs.push_back(native_job(args));
  else kernelbench_jobs(args, c);
  read_settings(args, c);
  read_llm_config(args, c);
  return c;
}

// One source or one problem: its line or its summary.json (--json).
int run_one(const OptimizeCall& c, llm::Client& client, GpuProbe& probe, const GpuInfo& gpu, const std::string& self_exe) {
  const std::vector<Job>& jobs = c.jobs;
  const Settings& st = c.st;
  const bool json = c.json;
  const Job& job = jobs.front();
  try {
    JobResult r = run_job(job, st, client, probe, gpu, self_exe);
    if (json) std::printf("%s", read_file(job.out + "/summary.json").c_str());
    if (r.exit_code == 0 && !json)
      std::printf("optimized %s: %.3fx over the original (confirmed), %s; artifacts in %s\n", job.name.c_str(),
                  r.speedup, st.write.empty() ? "kept in best.cu" : ("written to " + st.write).c_str(), job.out.c_str());
    if (r.exit_code != 0)
      std::fprintf(stderr, "kernelblaster optimize: no faster kernel kept (%s); artifacts in %s\n",
                   r.why.c_str(), job.out.c_str());
    return r.exit_code;
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster optimize: %s\n", x.what());
    return 2;
  }
}

// A directory of problems: each in turn, resumable, one failure never ends the others.
int run_directory(const OptimizeCall& c, llm::Client& client, GpuProbe& probe, const GpuInfo& gpu,
                  const std::string& self_exe) {
  const std::vector<Job>& jobs = c.jobs;
  const Settings& st = c.st;
  const std::string& out_root = c.out_root;
  std::vector<std::pair<Job, JobResult>> rows;
  int kept = 0, skipped = 0;
  for (const Job& job : jobs) {
    JobResult r;
    if (!job.invalid.empty()) {
      r.why = job.invalid;
      print_line("[optimize] " + job.name + ": " + verdict_text(r));
    } else if (fs::is_regular_file(job.out + "/summary.json")) {
      r = earlier_result(job.out + "/summary.json");
      ++skipped;
      print_line("[optimize] " + job.name + ": " + verdict_text(r) + ", skipped");
    } else {
      try {
        r = run_job(job, st, client, probe, gpu, self_exe);
      } catch (const std::exception& x) {
        r.verdict = JobVerdict::failed;
        r.why = x.what();
        print_line("[optimize] " + job.name + ": " + verdict_text(r));
      }
    }
    kept += r.exit_code == 0;
    rows.emplace_back(job, r);
    write_table(out_root, rows, table_name(c.shard));
    // The run's caps (no kernel is named, so per-kernel caps do not apply here).
    if (std::string why = client.budget().admit(""); !why.empty()) {
      print_line("[optimize] stopping: " + why);
      break;
    }
  }
  std::printf("optimized %d of %zu problems%s (%d done before, skipped); table in %s/%s\n", kept, rows.size(),
              c.shard.all() ? "" : (" of shard " + c.shard.text()).c_str(), skipped, out_root.c_str(),
              table_name(c.shard).c_str());
  return 0;
}

}  // namespace

// The source's host launchers (libclang) that the harness mentions.
HarnessLaunchers harness_launchers_of(const std::string& source, const std::string& harness,
                                      const std::vector<std::string>& include_dirs,
                                      const std::vector<std::string>& definitions) {
  if (!harness::have_parser())
    throw UsageError("--launcher is required (this build has no libclang to find the host function the harness calls)");
  harness::ScanOptions opt;
  opt.include_dirs = include_dirs;
  opt.definitions = definitions;
  harness::SourceScan scan = harness::scan_source(source, opt);
  const std::string harness_code = code_only(read_file(harness));
  HarnessLaunchers out;
  for (const harness::Launcher& l : scan.launchers) {
    out.all.push_back(l.name);
    if (!kernelbench::find_identifier(harness_code, l.name).empty()) out.named.push_back(l.name);
  }
  return out;
}

std::string HarnessLaunchers::list() const {
  const std::vector<std::string>& names = named.empty() ? all : named;
  return names.empty() ? std::string("none") : joined(names);
}

// This GPU's roofline ceilings, measured the first time this machine needs
// them and cached: the plausibility line of every judgement reads them.
static void ensure_ceilings(int device, const std::string& self_exe) {
  const std::string helper = profile::find_gpu_helper(self_exe);
  const profile::CeilingsLookup found = profile::ceilings_for(helper, device, profile::default_cache_dir(), false);
  for (const std::string& note : found.notes) std::fprintf(stderr, "kernelblaster optimize: %s\n", note.c_str());
  if (const std::string line = profile::ceilings_line(found); !line.empty())
    std::fprintf(stderr, "kernelblaster optimize: %s\n", line.c_str());
}

// The GPU, then one run or a directory of them; exit status as optimize_command's.
static int run_optimize(const OptimizeCall& c, llm::Client& client, const std::string& self_exe) {
  CudaGpuProbe probe;
  GpuInfo gpu = probe.probe(c.st.device);
  if (!gpu.present) {
    if (std::string node = nvidia_device_node(); !node.empty()) {
      std::fprintf(stderr, "kernelblaster optimize: %s is here but %s\n", node.c_str(), gpu.reason.c_str());
      return 2;
    }
    std::fprintf(stderr, "kernelblaster optimize: skipped: %s\n", gpu.reason.empty() ? "no GPU" : gpu.reason.c_str());
    return 77;
  }
  ensure_ceilings(c.st.device, self_exe);
  if (c.kernelbench_root.empty() || (c.jobs.size() == 1 && c.shard.all())) return run_one(c, client, probe, gpu, self_exe);
  return run_directory(c, client, probe, gpu, self_exe);
}

// optimize --list: the kernel units of a source, read from its text.
int list_units(const CommandArgs& argv) {
  Args args(argv, {"--source", "--harness", "--manifest", "-I", "-D", "--project-root"}, {"--list", "--json"});
  const std::string source = args.value("--source");
  if (source.empty()) throw UsageError("--list needs --source FILE.cu");
  if (!fs::is_regular_file(source)) throw UsageError("no such file: " + source);
  CompileSettings cs;
  if (!args.value("--manifest").empty()) cs = settings_from_manifest(args.value("--manifest"));
  for (const std::string& d : args.values("-I")) cs.include_dirs.push_back(d);
  cs.include_dirs.push_back(fs::absolute(source).parent_path().string());
  Settings st;
  st.manifest = args.value("--manifest");
  st.project_root = args.value("--project-root");
  Job job;
  job.name = fs::path(source).filename().string();
  job.source = source;
  job.harness = args.value("--harness");
  std::vector<rewrite::KernelUnit> units = kernel_units_of(job, st, cs.include_dirs);
  const std::string root = units.empty() ? "" : units.front().project_root;
  const std::size_t whole =
      units.empty() ? read_file(source).size() : rewrite::source_with_kernels(source, cs.include_dirs, root, {}).size();
  nlohmann::json j = {{"source", fs::absolute(source).string()}, {"project_root", root}, {"whole_source_bytes", whole}};
  j["kernels"] = nlohmann::json::array();
  for (const rewrite::KernelUnit& u : units) {
    std::size_t launcher_bytes = 0;
    for (const std::string& f : u.launchers) launcher_bytes += f.size();
    j["kernels"].push_back({{"kernel", u.definition.name}, {"file", u.definition.file}, {"line", u.definition.line},
                            {"template", u.definition.is_template}, {"definition_bytes", u.definition.text.size()},
                            {"launching_functions", u.launchers.size()}, {"launching_bytes", launcher_bytes}});
  }
  if (args.flag("--json")) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("%s: %zu kernels the project defines (root %s); the whole source as one text: %zu bytes\n",
              job.name.c_str(), units.size(), root.c_str(), whole);
  for (const auto& k : j["kernels"])
    std::printf("  %-32s %s:%d  %zu bytes%s, launched from %zu function(s) of the source or its headers (%zu bytes)\n",
                k["kernel"].get<std::string>().c_str(), fs::path(k["file"].get<std::string>()).filename().c_str(),
                k["line"].get<int>(), k["definition_bytes"].get<std::size_t>(), k["template"].get<bool>() ? ", template" : "",
                k["launching_functions"].get<std::size_t>(), k["launching_bytes"].get<std::size_t>());
  if (units.size() > 1 || (units.size() == 1 && units.front().definition.file != units.front().source_path))
    std::printf("a rewrite takes one kernel at a time: the one the original's profile gives the most GPU time\n");
  else
    std::printf("a rewrite takes the whole source\n");
  return 0;
}

int optimize_command(const CommandArgs& argv, const std::string& self_exe) {
  if (std::find(argv.begin(), argv.end(), "--list") != argv.end())
    return run_command("optimize", kHelp, argv, [&] { return list_units(argv); });
  return run_command("optimize", kHelp, argv, [&] {
    OptimizeCall c = parse_call(argv);
    std::unique_ptr<llm::Client> client;
    try {
      client = llm::make_client(c.config, self_exe, [](const char* name) { return std::getenv(name); });
    } catch (const std::exception& x) {
      throw std::runtime_error(std::string("no usable LLM: ") + x.what());  // not a usage error: the line has no "see --help"
    }
    return run_optimize(c, *client, self_exe);
  });
}

}  // namespace kernelblaster
