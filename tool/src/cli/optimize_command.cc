// kernelblaster optimize: the MAIC-RL loop on one native source + harness,
// with an LLM writing the rewrites and the engine judging them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "eval/gpu_probe.h"
#include "eval/manifest.h"
#include "kb/kb_store.h"
#include "llm/client.h"
#include "optimize/engine_judge.h"
#include "optimize/loop.h"
#include "optimize/run_record.h"
#include "rewrite/code_blocks.h"
#include "search/policy_choice.h"

namespace kernelblaster {
namespace {

namespace fs = std::filesystem;

const char* kHelp = R"(usage: kernelblaster optimize --source FILE.cu --harness HARNESS.cu --launcher NAME [options] [LLM settings]

Rewrites the kernel with an LLM, one technique at a time: the state comes
from the original's profile and the KB's rules, the policy chooses a
technique from the KB's statistics for that state and this GPU, the model
writes the code (with fix attempts fed by the compiler, the static checks
and the engine), the engine judges every candidate against the original,
and the KB learns every step's outcome. The fastest verified kernel is
looked at again with fresh seeds before it is kept. Progress goes to stderr.

  --launcher NAME       the host function the harness calls (it keeps its signature)
  --contract TEXT       what else must not change, in words, for the prompt
  --manifest FILE       compile settings as JSON or a build's manifest
  -I DIR, -D NAME[=V]   include directories and definitions for nvcc
  --arch sm_XY          GPU architecture (default: the GPU's own)
  --out DIR             the run's artifacts (default: kernelblaster-optimize/<source name>)
  --write FILE          where the kept kernel goes (written only when one was kept)
  --trajectories N      independent trajectories from the original (default 2)
  --steps N             steps per trajectory (default 3)
  --fix-attempts N      fix attempts after a step's first (default 2)
  --review-every N      steps between the KB's reviews by the model (notes,
                        prediction factors, new techniques and states,
                        deprecations; validated before use); 0: none (default 4)
  --min-gain X          a step becomes the next base, and the winner is kept,
                        only when at least this much faster (default 0.02)
  --seed N              the policy's random choices (default 0)
  --policy FILE.lua     selection policy (default: the built-in one)
  --kb FILE             the KB to read and to teach (default: KERNELBLASTER_KB
                        or ~/.cache/kernelblaster/kb.json, over the seed KB)
  --device N            the GPU to measure on (default 0)
  --seeds N             fresh seeds per evaluation (default 3)
  --quiet               no progress lines
  --json                print summary.json on stdout

LLM settings are those of `kernelblaster llm --help` (--provider, --model,
--base-url, --cache record|replay, --max-run-usd, ...), each also a
KERNELBLASTER_LLM_* variable. Without a model configured nothing is sent:
`kernelblaster tune` searches a kernel's tunables without an LLM.

Exit status: 0 a faster kernel was kept, 1 none was (one line says why),
2 bad usage, 77 no GPU on this machine.
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

}  // namespace

int optimize_command(const CommandArgs& argv, const std::string& self_exe) {
  for (const std::string& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
  std::set<std::string> valued = {"--source", "--harness", "--launcher", "--contract", "--manifest", "-I", "-D",
                                  "--arch", "--out", "--write", "--trajectories", "--steps", "--fix-attempts",
                                  "--min-gain", "--seed", "--policy", "--kb", "--device", "--seeds", "--review-every"};
  for (const std::string& name : llm::setting_names()) valued.insert("--" + name);
  std::string source, harness, launcher, contract, manifest, arch, out, write, policy_path, kb_flag;
  std::vector<std::string> include_dirs, definitions;
  optimize::LoopOptions options;
  int device = 0, seeds = 3;
  bool json = false;
  llm::LlmConfig config;
  try {
    Args args(argv, valued, {"--quiet", "--json"});
    json = args.flag("--json");
    g_quiet = args.flag("--quiet");
    source = args.value("--source");
    harness = args.value("--harness");
    launcher = args.value("--launcher");
    if (source.empty()) throw UsageError("--source is required");
    if (harness.empty()) throw UsageError("--harness is required");
    if (launcher.empty()) throw UsageError("--launcher is required (the host function the harness calls)");
    for (const std::string* p : {&source, &harness})
      if (!fs::is_regular_file(*p)) throw UsageError("no such file: " + *p);
    if (!rewrite::defines_function(read_file(source), launcher))
      throw UsageError(source + " defines no function named " + launcher + " (--launcher)");
    contract = args.value("--contract");
    manifest = args.value("--manifest");
    include_dirs = args.values("-I");
    definitions = args.values("-D");
    arch = args.value("--arch");
    out = args.value("--out", "kernelblaster-optimize/" + fs::path(source).stem().string());
    write = args.value("--write");
    options.trajectories = whole_number(args, "--trajectories", 2, 1);
    options.steps = whole_number(args, "--steps", 3, 1);
    options.fix_attempts = whole_number(args, "--fix-attempts", 2, 0);
    options.review_every = whole_number(args, "--review-every", 4, 0);
    options.min_gain = args.number("--min-gain", 0.02);
    if (options.min_gain < 0) throw UsageError("--min-gain must be >= 0");
    options.seed = static_cast<std::uint64_t>(whole_number(args, "--seed", 0, 0));
    policy_path = args.value("--policy");
    kb_flag = args.value("--kb");
    device = whole_number(args, "--device", 0, 0);
    seeds = whole_number(args, "--seeds", 3, 3);
    options.confirm_seeds = std::max(5, seeds);
    llm::config_from_env_over(config, [](const char* name) { return std::getenv(name); });
    for (const std::string& name : llm::setting_names())
      if (std::string v = args.value("--" + name, "\x01"); v != "\x01") llm::apply_setting(config, name, v);
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster optimize: %s (see --help)\n", x.what());
    return 2;
  }
  std::unique_ptr<llm::Client> client;
  try {
    client = llm::make_client(config, self_exe, [](const char* name) { return std::getenv(name); });
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster optimize: no usable LLM: %s\n", x.what());
    return 2;
  }

  CudaGpuProbe probe;
  GpuInfo gpu = probe.probe(device);
  if (!gpu.present) {
    if (std::string node = nvidia_device_node(); !node.empty()) {
      std::fprintf(stderr, "kernelblaster optimize: %s is here but %s\n", node.c_str(), gpu.reason.c_str());
      return 2;
    }
    std::fprintf(stderr, "kernelblaster optimize: skipped: %s\n", gpu.reason.empty() ? "no GPU" : gpu.reason.c_str());
    return 77;
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::string scratch;
  try {
    optimize::EngineJudgeTarget jt;
    jt.source = fs::absolute(source).string();
    jt.harness = fs::absolute(harness).string();
    if (!manifest.empty()) jt.compile = settings_from_manifest(manifest);
    if (!arch.empty()) jt.compile.arch = arch;
    if (jt.compile.arch.empty()) jt.compile.arch = gpu.arch;
    for (const auto& d : include_dirs) jt.compile.include_dirs.push_back(d);
    for (const auto& d : definitions) jt.compile.definitions.push_back(d);
    for (std::string& d : jt.compile.include_dirs) d = fs::absolute(d).string();
    jt.compile.include_dirs.push_back(fs::path(jt.source).parent_path().string());
    scratch = make_work_dir("kernelblaster-optimize");
    jt.work_dir = scratch;
    jt.lock_dir = default_lock_dir();
    jt.device = device;
    jt.seeds = seeds;

    const std::string kb_path = !kb_flag.empty() ? kb_flag : kb::default_user_kb_path();
    std::string seed_path;
    try {
      seed_path = kb::seed_kb_path(self_exe);
    } catch (const std::exception&) {
    }
    kb::KnowledgeBase knowledge = seed_path.empty() ? (fs::exists(kb_path) ? kb::load_kb(kb_path) : kb::KnowledgeBase{})
                                                    : kb::load_layered(seed_path, kb_path);
    if (knowledge.techniques.empty()) throw std::runtime_error("the KB has no techniques to choose from");
    const kb::KnowledgeBase before = knowledge;
    search::PolicyChoice policy = search::choose_policy(policy_path, print_line);

    optimize::KernelTarget target;
    target.kernel = fs::path(source).filename().string();
    target.source = read_file(source);
    target.launcher = launcher;
    target.contract = contract.empty() ? "the launcher " + launcher +
                                             " keeps its signature, reads its inputs and writes every output as the original does"
                                       : contract;
    target.arch = jt.compile.arch;
    target.gpu = gpu.name;

    optimize::EngineJudge judge(find_toolchain(self_exe), probe, jt);
    optimize::Loop loop(target, options, knowledge, *policy.policy, *client, judge, print_line);
    optimize::RunResult result = loop.run();
    // One locked, atomic write of the user's KB: every step's outcome and every applied review.
    bool reviewed = false;
    for (const optimize::Review& rv : result.reviews) reviewed = reviewed || rv.applied;
    if (!result.outcomes.empty() || reviewed)
      kb::update_kb(kb_path, [&](kb::KnowledgeBase& user) {
        for (const kb::Outcome& o : result.outcomes) kb::record(user, o);
        for (const optimize::Review& rv : result.reviews)
          if (rv.applied) optimize::apply_knowledge_update(user, rv.update, target.arch);
      });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    optimize::write_run_artifacts(out, target, result, before, knowledge, seconds);
    if (result.improved && !write.empty()) write_file(write, result.best_source);
    fs::remove_all(scratch);
    scratch.clear();
    if (json) std::printf("%s", read_file(out + "/summary.json").c_str());
    if (result.improved) {
      if (!json)
        std::printf("optimized %s: %.3fx over the original (confirmed), %s; artifacts in %s\n", target.kernel.c_str(),
                    result.confirmation.speedup, write.empty() ? "kept in best.cu" : ("written to " + write).c_str(),
                    out.c_str());
      return 0;
    }
    std::fprintf(stderr, "kernelblaster optimize: no faster kernel kept (%s); artifacts in %s\n",
                 result.stop_reason.c_str(), out.c_str());
    return 1;
  } catch (const std::exception& x) {
    if (!scratch.empty()) {
      std::error_code ec;
      fs::remove_all(scratch, ec);
    }
    std::fprintf(stderr, "kernelblaster optimize: %s\n", x.what());
    return 2;
  }
}

}  // namespace kernelblaster
