// `kernelblaster build`: the build step behind kernelblaster_optimize(). The
// CMake module runs it once per optimized source; the decisions are in
// build_step/build_step.h, this file wires the real GPU, tuner and nvcc to them.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "build_step/build_stats.h"
#include "build_step/build_step.h"
#include "build_step/gpu_memo.h"
#include "build_step/results_cache.h"
#include "common/sha256.h"
#include "common/text.h"
#include "build_step/tune_runner.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "common/compiler_output.h"
#include "common/subprocess.h"
#include "judge/candidate_build.h"
#include "judge/gpu_probe.h"
#include "judge/manifest.h"
#include "kb/kb_store.h"
#include "kernelblaster/build_paths.h"
#include "policy/lua_policy.h"
#include "harness/capture_step.h"
#include "harness/harness_coverage.h"
#include "tuner/shared_entry.h"
#include "tuner/source_space.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster build --manifest M --source S --harness H --out O [options]

Writes the source a target compiles in place of S: the tuned version for
this GPU (from the results cache, the lockfile, or a tuning run), else S
itself behind a #line directive. O (and --rsp) are rewritten only when their
content changes, so an unchanged rebuild recompiles nothing. Prints one line
saying what was used and why. Fails only for bad usage, an unreadable
source, or --strict without a verified result.

  --manifest FILE       compile settings of the target (arch, include_dirs, definitions, flags)
  --source FILE         the original kernel source
  --harness FILE        its native harness
  --capture FILE        no harness of the user's: FILE holds the calls the
                        project's runs recorded; from them a harness is
                        synthesized (written to --harness), and until there
                        are some, a recording shim is compiled instead of S
  --capture-name NAME   the shim's file under KERNELBLASTER_CAPTURE_DIR
                        (NAME.calls.jsonl: FILE); without it, the shim records
                        only where KERNELBLASTER_CAPTURE_FILE is set
  --capture-on-request  the calls are recorded only while the CAPTURE_TESTS run
                        (said in the line; the shim records wherever
                        KERNELBLASTER_CAPTURE_FILE is set, and nowhere else)
  --allow-unverified    tune with a synthesized harness even where some of the
                        source's kernels run in no recorded call
  --out FILE            the source to compile
  --rsp FILE            nvcc options file for the flags the result needs
  --stamp FILE          touched on every run
  --depfile FILE        write the headers S includes (Makefile syntax)
  --mode M              AUTO (tune on a miss when a GPU is present), APPLY (cached
                        or locked results only), TUNE (tune even on a hit), OFF
  --cache-dir DIR       results cache (default KERNELBLASTER_CACHE_DIR, else
                        ${XDG_CACHE_HOME:-~/.cache}/kernelblaster/results)
  --remote-storage URL  an HTTP(S) server shared with other machines (default
                        KERNELBLASTER_REMOTE_STORAGE): asked on a local miss,
                        given each new result (GET/PUT URL/<gpu>/<key>.json;
                        a bearer token from KERNELBLASTER_REMOTE_STORAGE_TOKEN)
  --lockfile FILE       kernelblaster.lock.json to read (and update with --update-lockfile)
  --update-lockfile     record a tuning run's result in the lockfile
  --lockfile-fragment   record it in this GPU's own file instead,
                        kernelblaster.lock.d/<gpu>.json beside the lockfile
                        (also KERNELBLASTER_UPDATE_LOCKFILE=fragment), for
                        `kernelblaster lock merge` to fold in
  --target-gpu NAME     the GPU to build for without it: a name ("NVIDIA H200"),
                        a fingerprint id, or an architecture (sm_90)
  --budget S            tuning budget in seconds (default 60)
  --min-speedup X       keep and apply results at least this fast (default: the tuner's own)
  --policy FILE.lua     selection policy for the tuner
  --kb FILE             the user knowledge base for the tuner
  --strict              fail when no verified result is available
  --require-result      fail on a miss, never tune (also KERNELBLASTER_REQUIRE_RESULT=1
                        in the environment): a CI build that must apply a known
                        result; the line names how its key differs from the
                        nearest stored result
  --dry-run             decide, but neither tune nor write anything
  --json                print the decision as JSON instead of the line

Exit status: 0 done (whatever was used), 1 --strict and no verified result, 2 bad usage.
)";

std::string nvcc_version_text(const std::string& nvcc, std::string* why) {
  ProcessOptions opt;
  opt.timeout_s = 30;
  ProcessResult r = run_process({nvcc, "--version"}, opt);
  if (!r.ok()) {
    std::string tail = r.spawn_failed ? "" : r.output_tail(1);
    *why = "nvcc could not be run (" + nvcc + " --version: " + r.how_it_ended() + (tail.empty() ? "" : ": " + tail) + ")";
    return "";
  }
  // The release line ("Cuda compilation tools, release 13.0, V13.0.88"):
  // the same compiler installed on two machines has the same key.
  for (std::size_t at = 0; at < r.output.size();) {
    std::size_t end = r.output.find('\n', at);
    std::string line = r.output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.find("release") != std::string::npos) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return r.output;
}

// The seed KB and the KB schema: the part of the KB that is the same on
// every machine (the user's own KB changes with every run and is left out).
std::string kb_version(const std::string& self_exe) {
  Sha256 h;
  h.field("kb-schema-" + std::to_string(kb::kSchemaVersion));
  try {
    h.field(read_file(kb::seed_kb_path(self_exe)));
  } catch (const std::exception&) {
    h.field("no-seed-kb");  // an install without one: a key of its own, never another install's
  }
  return h.hex();
}

// The recording shim takes the original's place in the user's target, so
// it must compile there, or the user's build would break: it is compiled
// here first with the target's settings. Empty when it compiles, else why not.
// Why an entry kept outside this run must not be compiled with ("" it may):
// its flags and defines in shape, then each define a tunable this build
// reads in the source, at one of its values (tuner/shared_entry.h).
std::string entry_refusal(const build_step::TunedResult& r, const build_step::BuildRequest& q) {
  if (std::string why = tuner::entry_refusal(r.flags, r.defines, r.prelude, q.arch); !why.empty()) return why;
  const auto settings = tuner::entry_settings(r.defines, r.prelude);
  if (settings.empty()) return "";
  try {
    const tuner::SourceSpace space = tuner::source_space(
        {read_file(q.source), fs::absolute(q.source).lexically_normal().string(), q.arch, q.manifest, q.definitions,
         q.include_dirs});
    return tuner::settings_refusal(space.decl, settings);
  } catch (const std::exception& x) {
    return std::string("the source's tunables cannot be read (") + x.what() + ")";
  }
}

std::string shim_compile_error(const Toolchain& tc, const build_step::BuildRequest& req) {
  std::string dir;
  try {
    dir = make_work_dir("kernelblaster-shim");
    write_file(dir + "/shim.cu", req.recording_shim);
  } catch (const std::exception& x) {
    return std::string("cannot write a scratch copy: ") + x.what();
  }
  std::vector<std::string> cmd = {tc.nvcc, "-c", dir + "/shim.cu", "-o", dir + "/shim.o"};
  if (!req.arch.empty()) cmd.push_back("-arch=" + req.arch);
  for (const std::string& d : req.include_dirs) cmd.push_back("-I" + d);
  cmd.push_back("-I" + fs::path(req.source).parent_path().string());
  for (const std::string& d : req.definitions) cmd.push_back("-D" + d);
  cmd.insert(cmd.end(), req.flags.begin(), req.flags.end());
  cmd.insert(cmd.end(), req.recording_flags.begin(), req.recording_flags.end());
  ProcessOptions opt;
  opt.timeout_s = 300;
  ProcessResult r = run_process(cmd, opt);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (r.ok()) return "";
  std::string first = first_error_line(r.output);
  return first.empty() ? r.how_it_ended() : first;
}

std::string report_json(const build_step::BuildReport& rep, const build_step::BuildRequest& req) {
  nlohmann::json j = {{"source", req.source},  {"action", build_step::build_action_name(rep.action)}, {"origin", build_step::result_origin_name(rep.origin)},
                      {"key", rep.key},        {"gpu", rep.selector},  {"line", rep.line},
                      {"headers", rep.headers}, {"wrote_source", rep.wrote_source}};
  if (rep.result) j["speedup"] = rep.result->speedup;
  // What the tool read from the manifest: the settings the key covers.
  j["cause"] = build_step::build_cause_name(rep.cause);
  j["settings"] = {{"arch", req.arch},
                   {"include_dirs", req.include_dirs},
                   {"definitions", req.definitions},
                   {"flags", req.flags}};
  return j.dump(2);
}

// What the command line asks for.
struct BuildCall {
  build_step::BuildRequest req;
  std::string capture, capture_name, kernel_records;
  std::string remote_storage;  // --remote-storage, else KERNELBLASTER_REMOTE_STORAGE
  bool capture_on_request = false, allow_unverified = false, json = false;
};

// The target's compile settings from its manifest, and the LLM model a
// build names (a rewrite before tuning; the key covers it). A manifest the
// tool cannot read is no usage error: the build goes on with the original.
void read_target_settings(build_step::BuildRequest& req) {
  if (req.manifest.empty()) return;
  try {
    Manifest m = read_manifest(req.manifest);
    const CompileSettings& cs = m.settings;
    req.target = m.target;
    req.arch = cs.arch;
    req.include_dirs = cs.include_dirs;
    req.definitions = cs.definitions;
    req.flags = cs.flags;
    // An LLM configured for the build: rewrite before tuning (the key covers it).
    std::string provider, model;
    for (const auto& [name, value] : m.llm) {
      if (name == "provider") provider = value;
      if (name == "model") model = value;
    }
    if (!model.empty()) req.rewriter = provider.empty() ? model : provider + "/" + model;
  } catch (const ManifestError& x) {
    req.unusable_manifest = x.what();  // the build goes on with the original, and says why
  }
}

BuildCall parse_call(const CommandArgs& argv) {
  BuildCall c;
  build_step::BuildRequest& req = c.req;
  std::string& capture = c.capture;
  std::string& kernel_records = c.kernel_records;
  bool& capture_on_request = c.capture_on_request;
  bool& allow_unverified = c.allow_unverified;
  bool& json = c.json;
  Args args(argv,
            {"--manifest", "--source", "--harness", "--capture", "--capture-name", "--kernel-records", "--out", "--rsp", "--stamp", "--depfile", "--mode", "--cache-dir",
             "--lockfile", "--target-gpu", "--budget", "--min-speedup", "--policy", "--kb", "--remote-storage"},
            {"--strict", "--require-result", "--update-lockfile", "--lockfile-fragment", "--dry-run", "--json", "--capture-on-request",
             "--allow-unverified"});
  json = args.flag("--json");
  req.source = args.value("--source");
  req.harness = args.value("--harness");
  req.manifest = args.value("--manifest");
  req.out = args.value("--out");
  req.rsp = args.value("--rsp");
  req.stamp = args.value("--stamp");
  req.depfile = args.value("--depfile");
  if (req.source.empty() || req.out.empty()) throw UsageError("--source and --out are required");
  if (!build_step::mode_from_name(args.value("--mode", "AUTO"), &req.mode))
    throw UsageError("--mode must be AUTO, APPLY, TUNE or OFF, not '" + args.value("--mode") + "'");
  const char* remote_env = std::getenv("KERNELBLASTER_REMOTE_STORAGE");
  c.remote_storage = args.value("--remote-storage", remote_env ? remote_env : "");
  req.cache_dir = args.value("--cache-dir");
  if (req.cache_dir.empty()) req.cache_dir = build_step::ResultsCache::default_dir();
  req.cache_max_bytes = build_step::ResultsCache::default_max_bytes();
  req.lockfile = args.value("--lockfile");
  const char* update_env = std::getenv("KERNELBLASTER_UPDATE_LOCKFILE");
  const std::string update = update_env ? update_env : "";
  req.lockfile_fragment = args.flag("--lockfile-fragment") || update == "fragment" || update == "FRAGMENT";
  req.update_lockfile = args.flag("--update-lockfile") || req.lockfile_fragment ||
                        (!update.empty() && update != "0" && update != "OFF");
  req.target_gpu = args.value("--target-gpu");
  req.budget_s = args.number("--budget", 60);
  req.min_speedup = args.number("--min-speedup", 0);
  req.policy = args.value("--policy");
  req.kb = args.value("--kb");
  req.strict = args.flag("--strict");
  const char* required = std::getenv("KERNELBLASTER_REQUIRE_RESULT");
  req.require_result = args.flag("--require-result") ||
                       (required && *required && std::string(required) != "0" && std::string(required) != "OFF");
  req.dry_run = args.flag("--dry-run");
  if (req.budget_s <= 0) throw UsageError("--budget must be positive");
  if (req.mode != build_step::Mode::off && req.harness.empty()) throw UsageError("--harness is required");
  read_target_settings(req);
  capture = args.value("--capture");
  kernel_records = args.value("--kernel-records");
  c.capture_name = args.value("--capture-name");
  capture_on_request = args.flag("--capture-on-request");
  allow_unverified = args.flag("--allow-unverified");
  return c;
}

harness::CaptureStep capture_step_of(const BuildCall& c) {
  const build_step::BuildRequest& req = c.req;
  harness::CaptureStep step;
  step.source = req.source;
  step.harness = req.harness;
  step.lines = c.capture;
  step.name = c.capture_name;
  step.kernel_records = c.kernel_records;
  step.runtime_dir = (fs::path(req.out).parent_path() / "kernelblaster_capture_include").string();
  step.include_dirs = req.include_dirs;
  step.definitions = req.definitions;
  step.dry_run = req.dry_run;
  step.on_request = c.capture_on_request;
  return step;
}

// No harness of the user's: one synthesized from recorded calls, or the
// recording shim meanwhile (harness/capture_step.h). Returns what the
// capture step decided.
harness::CaptureOutcome prepare_capture(BuildCall& c) {
  build_step::BuildRequest& req = c.req;
  const std::string& kernel_records = c.kernel_records;
  const bool allow_unverified = c.allow_unverified;
  harness::CaptureOutcome o = harness::prepare_capture_step(capture_step_of(c));
  const std::string unverified = joined(o.unverified);
  const std::string what = o.unverified_kind + (o.unverified.size() == 1 ? " " : "s ") + unverified;
  if (o.state == harness::CaptureOutcome::State::harness_ready && !o.unverified.empty() && !allow_unverified) {
    // Kernels no harness call runs must not change: only the launch sites
    // the harness runs are tuned (no flag, no rewrite of the whole file).
    req.unharnessed = unverified;
    req.harness_note = o.note + "the " + what + (o.unverified.size() == 1 ? " runs" : " run") +
                       " in no recorded call (" + o.unverified_why +
                       "), so only the launch sites the harness runs are tuned, with no compiler flag "
                       "(ALLOW_UNVERIFIED tunes the whole file); ";
  } else if (o.state == harness::CaptureOutcome::State::harness_ready && !o.unverified.empty()) {
    req.harness_note = o.note + "the " + what + (o.unverified.size() == 1 ? " is" : " are") +
                       " not verified (ALLOW_UNVERIFIED); ";
  } else if (o.state == harness::CaptureOutcome::State::harness_ready) {
    req.harness_note = o.note;
  } else if (o.state == harness::CaptureOutcome::State::recording) {
    req.recording_shim = o.shim_text;
    req.recording_flags = o.shim_flags;
    req.recording_kernels = !kernel_records.empty();
    req.harness_note = o.note;
    req.recording_next = o.next;
    req.kernel_records = kernel_records;
  } else {
    req.no_harness = o.note;
  }
  return o;
}

// What the build step needs of this machine: the GPU (remembered per cache),
// nvcc's version, the tuner as a child process, the line printer.
build_step::BuildEnvironment build_environment(const build_step::BuildRequest& req, const Toolchain& tc,
                                          const std::string& self_exe) {
  build_step::BuildEnvironment env;
  env.probe_gpu = [cache_dir = req.cache_dir](std::string* why) { return build_step::probe_gpu_remembered(cache_dir, 0, why); };
  env.gpu_device_present = [] { return !nvidia_device_node().empty(); };
  env.tune = [self_exe](const build_step::TuneRequest& tr) { return build_step::run_tuner(self_exe, tr); };
  env.shim_compile_error = [tc](const build_step::BuildRequest& r) { return r.dry_run ? std::string() : shim_compile_error(tc, r); };
  env.refuse_entry = [](const build_step::TunedResult& r, const build_step::BuildRequest& q) {
    return entry_refusal(r, q);
  };
  env.say = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  env.nvcc_version = [nvcc = tc.nvcc](std::string* why) { return nvcc_version_text(nvcc, why); };
  env.tool_version = KERNELBLASTER_VERSION;
  env.kb_version = kb_version(self_exe);
  std::error_code ec;
  env.skip_include_prefixes = {fs::weakly_canonical(fs::path(KERNELBLASTER_CUDA_BIN_DIR) / "..", ec).string() + "/"};
  return env;
}

// The step counted for `kernelblaster stats`, and where this target's build
// steps count, for stats run in the build tree.
void count_step(const build_step::BuildRequest& req, const build_step::BuildReport& rep) {
  if (req.dry_run) return;
  build_step::count_build_step(req.cache_dir, rep);  // best effort: never fails the build
  // Where this target's build steps count, for `kernelblaster stats` run in the build tree.
  if (!req.manifest.empty()) {
    try {
      write_if_changed((fs::path(req.manifest).parent_path() / build_step::kCacheDirRecord).string(),
                       fs::absolute(req.cache_dir).lexically_normal().string() + "\n");
    } catch (const std::exception&) {
      // a read-only build tree: stats then needs --cache-dir, nothing else is lost
    }
  }
}

}  // namespace

// The build's POLICY and KB files the tuner would refuse, one line each.
static std::vector<std::string> refused_inputs(const build_step::BuildRequest& req) {
  std::vector<std::string> out;
  if (!req.policy.empty()) {
    try {
      policy::load_lua_policy_file(req.policy);
    } catch (const std::exception& x) {
      out.push_back("POLICY file " + req.policy + " is refused (" + x.what() +
                    "); a tuning run here would use the built-in policy");
    }
  }
  std::error_code ec;
  if (!req.kb.empty() && fs::exists(req.kb, ec)) {
    try {
      kb::load_kb(req.kb);
    } catch (const std::exception& x) {
      out.push_back("KB file " + req.kb + " is refused (" + x.what() + "); a tuning run here would not learn from it");
    }
  }
  return out;
}

// The step once the call is read: capture, the harness warning, refused
// inputs, the decision, its line. Exit status as build_command's.
// An original that fails under its synthesized harness is the tool's
// fault, never the user's: the launchers that harness called are not
// replayed again (until the source changes), their kernels' recorded
// launches are, and the step runs once more with that harness. The line
// says so first. Nothing when no launcher was replayed or no other harness
// can be made.
static std::optional<build_step::BuildReport> replay_kernels_instead(BuildCall& c, const harness::CaptureOutcome& first,
                                                                     const build_step::BuildReport& rep,
                                                                     const build_step::BuildEnvironment& env) {
  if (!rep.harness_failed || first.launchers_replayed.empty() || c.req.dry_run) return std::nullopt;
  harness::refuse_launchers(capture_step_of(c), first.launchers_replayed, rep.tuning_error);
  const std::string lead = "the original failed under the harness replaying the recorded calls of " +
                           joined(first.launchers_replayed) + " (" + rep.tuning_error + ")";
  c.req.unharnessed.clear();
  c.req.harness_note.clear();
  c.req.no_harness.clear();
  const harness::CaptureOutcome again = prepare_capture(c);
  if (again.state != harness::CaptureOutcome::State::harness_ready) {
    c.req.no_harness = lead + "; " + again.note;
    c.req.harness_note.clear();
  } else {
    c.req.harness_note = lead + ", so its kernels' recorded launches are replayed instead; " + c.req.harness_note;
  }
  return build_step::run_build_step(c.req, env);
}

static int run_build(BuildCall& c, const std::string& self_exe) {
  build_step::BuildRequest& req = c.req;
  harness::CaptureOutcome captured;
  if (!c.capture.empty() && req.mode != build_step::Mode::off && req.unusable_manifest.empty())
    captured = prepare_capture(c);

  // A harness of the user's that runs nothing of its source is a warning:
  // the tuning would measure nothing the source compiles.
  if (c.capture.empty() && !req.harness.empty() && req.mode != build_step::Mode::off)
    if (std::string w = harness::harness_coverage_warning(req.harness, req.source, req.include_dirs, req.definitions);
        !w.empty())
      req.harness_note = "warning: " + w + "; ";

  // A POLICY or KB the tuner would refuse is said at every build, GPU or
  // not (configure time says it too where the tool already exists there).
  if (!req.dry_run && !c.json)
    for (const std::string& refused : refused_inputs(req))
      std::printf("kernelblaster: %s: %s\n", fs::path(req.source).filename().string().c_str(), refused.c_str());

  const Toolchain tc = find_toolchain(self_exe);
  build_step::BuildEnvironment env = build_environment(req, tc, self_exe);
  if (!c.remote_storage.empty()) {
    std::string why;
    env.remote = build_step::make_http_storage(c.remote_storage, {}, &why);
    if (!env.remote && !c.json)  // refused, said, and the build goes on with local results
      std::printf("kernelblaster: %s: %s; using local results only\n", fs::path(req.source).filename().string().c_str(),
                  why.c_str());
  }
  // Throws only when the original cannot be read (run_command says it in one line, exit 2).
  build_step::BuildReport rep = build_step::run_build_step(req, env);
  if (std::optional<build_step::BuildReport> again = replay_kernels_instead(c, captured, rep, env)) rep = *again;
  count_step(req, rep);
  std::printf("%s\n", c.json ? report_json(rep, req).c_str() : rep.line.c_str());
  std::fflush(stdout);
  if (rep.strict_failure) {
    std::fprintf(stderr, "kernelblaster build: %s: %s\n", req.source.c_str(),
                 rep.cause == build_step::BuildCause::result_required
                     ? "no result applies and KERNELBLASTER_REQUIRE_RESULT is set"
                     : "no verified result and STRICT is set");
    return 1;
  }
  return 0;
}

int build_command(const CommandArgs& argv, const std::string& self_exe) {
  return run_command("build", kHelp, argv, [&] {
    BuildCall c = parse_call(argv);
    return run_build(c, self_exe);
  });
}

}  // namespace kernelblaster
