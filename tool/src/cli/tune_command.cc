#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "judge/gpu_probe.h"
#include "tuner/space_decl.h"
#include "tuner/start_from.h"
#include "tuner/tune_listing.h"
#include "tuner/tuner.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster tune --source FILE.cu --harness HARNESS.cu [options]
       kernelblaster tune --list --source FILE.cu [--harness HARNESS.cu] [-I DIR ...] [--manifest FILE] [--json]

Searches the tunable parameters declared in the source (// kernelblaster:
tunable ...) and nvcc flags for the fastest configuration that the engine
verifies against the original, re-verifies the winner with fresh seeds, and
writes it to --out. Progress goes to stderr.

  --manifest FILE       compile settings, tunables and constraints as JSON
  -I DIR, -D NAME[=V]   include directories and definitions for nvcc
  --arch sm_XY          GPU architecture (default: the GPU's own)
  --out FILE            where the tuned source goes (written only on success)
  --log FILE            the run log: every evaluation (replay reads it)
  --budget SECONDS      the run's wall time, re-verification included: the search
                        starts no measurement it expects to end past what the
                        setup and the original's profile left (default 60, as
                        kernelblaster_optimize's BUDGET)
  --max-evals N         configurations to try at most (default: no cap)
  --policy FILE.lua     selection policy (default: the built-in one)
  --kb FILE             the KB to warm-start from and to teach (default:
                        KERNELBLASTER_KB or ~/.cache/kernelblaster/kb.json)
  --min-speedup X       write only a winner at least this fast (default 1.02)
  --seed N              seed of the policy's choices (default 0)
  --start-from CONFIG   measure this configuration first ("NAME=VALUE,...,-flag",
                        a run log's configuration id; the build passes the
                        source's last winner on this GPU from its lockfile);
                        one the space no longer holds is said and left
  --state-dir DIR       keep the search's state in DIR and resume it: what was
                        measured (never measured again), the original's build
                        and profile, the last winner's look; the summary says
                        whether the search is over ("continues"). The build
                        passes a directory of the results cache per source,
                        content key and GPU
  --fresh-search        with --state-dir: start the search afresh (MODE TUNE),
                        keeping the original's builds
  --devices 0,1         GPUs to measure on, one measurement each at a time
                        (default: every visible GPU)
  --no-flags            tune the declared tunables only, no nvcc flags
  --partial-harness     the harness runs only some of the source's kernels (the build
                        passes it when recordings missed some): search only the
                        launch sites it runs, no flags
  --quiet               no progress lines
  --name NAME           the kernel's name in the progress lines, the log and the KB's notes
                        (default: the source's file name; the build passes the user's
                        source when it tunes a rewrite of it)
  --json                print a summary as JSON on stdout
  --list                print every tunable the source offers, per launch site
                        (#defines, constants and template arguments that shape
                        a launch, with the constraints derived from the code)
                        and the size of the valid space; no GPU. With --harness,
                        what that harness lets the search reach: the tunables of
                        launches no size of it runs, or that a harness replaying
                        recorded launches cannot follow, are left as written

Exit status: 0 tuned source written, 1 nothing worth writing (one line says
why), 2 bad usage, 3 nothing could be measured (the original does not build
or run with its harness, or nvcc cannot run; one line says which), 77 no GPU
on this machine.
)";

// On a terminal, the progress lines of the search ("[tune] k.cu  3/95 ...")
// update one line in place; every other line, and every line in a log or
// CI, is printed as it is.
bool g_progress_open = false;

bool is_progress_line(const std::string& s) {
  const std::size_t slash = s.find('/');
  const std::size_t gap = s.find("  ");
  return s.rfind("[tune] ", 0) == 0 && gap != std::string::npos && slash != std::string::npos && slash > gap &&
         s.find(" best ", slash) != std::string::npos;
}

void print_line(const std::string& s) {
  static const bool terminal = ::isatty(STDERR_FILENO) == 1;
  if (terminal && is_progress_line(s)) {
    std::fprintf(stderr, "\r\033[K%s", s.c_str());
    g_progress_open = true;
    return;
  }
  if (g_progress_open) std::fputc('\n', stderr);
  g_progress_open = false;
  std::fprintf(stderr, "%s\n", s.c_str());
}

std::vector<int> parse_devices(const std::string& list) {
  std::vector<int> out;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    int d = -1;
    try {
      d = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;  // not a number: refused below, with the list named
    }
    if (used != item.size() || d < 0) throw UsageError("--devices needs GPU numbers like 0,1, got '" + list + "'");
    out.push_back(d);
  }
  if (out.empty()) throw UsageError("--devices needs GPU numbers like 0,1");
  return out;
}

// What the command line asks for.
struct TuneCall {
  tuner::TuneOptions opt;
  bool json = false;
  bool list = false;
};

TuneCall parse_call(const CommandArgs& argv) {
  TuneCall c;
  Args args(argv,
            {"--source", "--harness", "--manifest", "-I", "-D", "--arch", "--out", "--log", "--budget",
             "--max-evals", "--policy", "--kb", "--min-speedup", "--seed", "--devices", "--name", "--start-from",
             "--state-dir"},
            {"--no-flags", "--partial-harness", "--quiet", "--json", "--list", "--fresh-search"});
  c.json = args.flag("--json");
  c.list = args.flag("--list");
  c.opt.source = args.value("--source");
  c.opt.harness = args.value("--harness");
  if (c.opt.source.empty()) throw UsageError("--source is required");
  if (c.opt.harness.empty() && !c.list) throw UsageError("--harness is required");
  c.opt.manifest = args.value("--manifest");
  c.opt.include_dirs = args.values("-I");
  c.opt.definitions = args.values("-D");
  c.opt.arch = args.value("--arch");
  c.opt.out = args.value("--out");
  c.opt.log = args.value("--log");
  c.opt.budget_s = args.number("--budget", 60);
  double max_evals = args.number("--max-evals", 0);
  c.opt.policy = args.value("--policy");
  c.opt.kb = args.value("--kb");
  c.opt.min_speedup = args.number("--min-speedup", 1.02);
  double seed = args.number("--seed", 0);
  if (!args.value("--devices").empty()) c.opt.devices = parse_devices(args.value("--devices"));
  c.opt.no_flags = args.flag("--no-flags");
  c.opt.partial_harness = args.flag("--partial-harness");
  c.opt.quiet = args.flag("--quiet");
  c.opt.name = args.value("--name");
  c.opt.start_from = args.value("--start-from");
  c.opt.state_dir = args.value("--state-dir");
  c.opt.fresh_search = args.flag("--fresh-search");
  if (c.opt.fresh_search && c.opt.state_dir.empty()) throw UsageError("--fresh-search needs --state-dir");
  try {
    (void)tuner::parse_start_from(c.opt.start_from);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--start-from: ") + e.what());
  }
  if (c.opt.budget_s <= 0) throw UsageError("--budget must be positive");
  if (max_evals < 0 || max_evals != static_cast<int>(max_evals)) throw UsageError("--max-evals needs a whole number >= 0");
  if (seed < 0 || seed != static_cast<double>(static_cast<std::uint64_t>(seed)))
    throw UsageError("--seed needs a whole number >= 0");
  if (c.opt.min_speedup <= 0) throw UsageError("--min-speedup must be positive");
  c.opt.max_evals = static_cast<int>(max_evals);
  c.opt.seed = static_cast<std::uint64_t>(seed);
  return c;
}

// The tunables of a source, read from its text: exit 0, or 2 for a source
// that cannot be read (one line).
int run_listing(const TuneCall& c) {
  const tuner::TuneListing l = tuner::list_tunables(
      {read_file(c.opt.source), c.opt.source, c.opt.arch.empty() ? "sm_90" : c.opt.arch, c.opt.manifest,
       c.opt.definitions, c.opt.include_dirs},
      c.opt.harness.empty() ? "" : read_file(c.opt.harness), c.opt.partial_harness);
  std::printf("%s", c.json ? (tuner::listing_json(l) + "\n").c_str() : tuner::listing_text(l).c_str());
  return 0;
}

// The search and what it prints; exit status as tune_command's.
int run_tune_call(const TuneCall& c, const std::string& self_exe) {
  if (c.list) return run_listing(c);
  const bool json = c.json;
  CudaGpuProbe probe;
  const tuner::TuneSummary s = tuner::run_tune(c.opt, self_exe, probe, print_line);
  if (g_progress_open) std::fputc('\n', stderr);  // end the line updated in place
  if (s.exit_code == 77) {
    if (std::string node = nvidia_device_node(); !node.empty()) {
      std::fprintf(stderr, "kernelblaster tune: %s is here but %s\n", node.c_str(), s.reason.c_str());
      return 2;
    }
    std::fprintf(stderr, "kernelblaster tune: skipped: %s\n", s.reason.c_str());
    return 77;
  }
  if (json) std::printf("%s\n", tuner::tune_summary_to_json(s).c_str());
  if (s.exit_code == 0) {
    if (!json)
      std::printf("tuned %s: %.3fx over the original (re-verified) with %s%s\n", s.source.c_str(), s.speedup,
                  s.out.empty() ? "no --out given" : "", s.out.empty() ? "" : s.out.c_str());
  } else if (!json) {  // the JSON says why (its reason): the build's own line then says it once
    std::fprintf(stderr, "kernelblaster tune: not tuned: %s\n", s.reason.c_str());
  }
  return s.exit_code;
}

}  // namespace

int tune_command(const CommandArgs& argv, const std::string& self_exe) {
  return run_command("tune", kHelp, argv, [&] { return run_tune_call(parse_call(argv), self_exe); });
}

}  // namespace kernelblaster
