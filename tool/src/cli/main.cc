// kernelblaster: the command-line tool. One executable, one subcommand per
// job; the CMake module only ever calls this.
#include <unistd.h>

#include <climits>
#include <map>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "kernelblaster/build_paths.h"

namespace {

const char* kUsage = R"(usage: kernelblaster <command> [options]

commands:
  eval      judge a candidate kernel source against the original (correctness, speed)
  tune      search tunable parameters and flags of a source for the fastest verified version
  optimize  rewrite a kernel with an LLM, technique by technique, keeping only verified gains
  kb        validate, show, summarize or merge knowledge-base files
  policy    check a Lua selection policy, or replay it on recorded measurements
  gpu       describe this machine's GPUs, measure their roofline ceilings
  build     produce a target's tuned source at build time (called by the CMake module)
  lock      merge lockfiles and runners' fragments (lock merge), git's merge driver for them
  gate      CTest gate: a tuned source is still correct and still fast enough
  stats     how build steps ended, counted per cause (like ccache -s)
  report    one HTML page (and Markdown) of a tuning run, an optimize run or a directory of them
  llm       check the LLM provider configuration (llm ping)
  harness   write a harness for each host launcher of a source (harness init), or from a capture (harness synth)
  capture   record a program's calls of its launchers (capture shim, capture -- COMMAND)
  version   print the version (--json: as JSON)

Run 'kernelblaster <command> --help' or 'kernelblaster help <command>' for a
command's options. Exit status: 0 done, 1 a judgement against the candidate
or nothing gained (eval, tune, optimize, gate), 2 bad usage or unreadable
input, 77 no GPU where one is needed.
)";

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  using Command = int (*)(const kernelblaster::CommandArgs&, const std::string&);
  const std::map<std::string, Command> commands = {
      {"eval", kernelblaster::eval_command},     {"tune", kernelblaster::tune_command},
      {"kb", kernelblaster::kb_command},         {"policy", kernelblaster::policy_command},
      {"gpu", kernelblaster::gpu_command},       {"build", kernelblaster::build_command},
      {"gate", kernelblaster::gate_command},     {"stats", kernelblaster::stats_command},
      {"llm", kernelblaster::llm_command},       {"harness", kernelblaster::harness_command},
      {"optimize", kernelblaster::optimize_command}, {"capture", kernelblaster::capture_command},
      {"report", kernelblaster::report_command}, {"lock", kernelblaster::lock_command},
  };
  // `help CMD` is `CMD --help`.
  if (command == "help" && !rest.empty() && commands.count(rest.front())) {
    command = rest.front();
    rest = {"--help"};
  }
  if (auto it = commands.find(command); it != commands.end()) return it->second(rest, self_exe());
  if (command == "version" || command == "--version" || (command == "help" && !rest.empty() && rest.front() == "version")) {
    if (command == "help" || (!rest.empty() && (rest.front() == "--help" || rest.front() == "-h"))) {
      std::fputs("usage: kernelblaster version [--json]\n\nPrints the tool's version (--json: as JSON).\n", stdout);
      return 0;
    }
    if (rest.size() > 1 || (!rest.empty() && rest.front() != "--json")) {
      std::fprintf(stderr, "kernelblaster version: unknown argument '%s' (see --help)\n", rest.back().c_str());
      return 2;
    }
    if (!rest.empty()) std::printf("{\"version\": \"%s\"}\n", KERNELBLASTER_VERSION);
    else std::printf("kernelblaster %s\n", KERNELBLASTER_VERSION);
    return 0;
  }
  if ((command == "help" && rest.empty()) || command == "--help" || command == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "help") {
    std::fprintf(stderr, "kernelblaster help: unknown command '%s' (run 'kernelblaster help' for the list)\n",
                 rest.front().c_str());
    return 2;
  }
  std::string names;
  for (const auto& [name, run] : commands) names += name + ", ";
  std::fprintf(stderr, "kernelblaster: unknown command '%s': one of %sversion (see 'kernelblaster help')\n", command.c_str(),
               names.c_str());
  return 2;
}
