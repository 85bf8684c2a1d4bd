// kernelblaster capture: record a program's calls of its kernels' host
// launchers, as the input of `harness synth` (issue 13).
//   capture shim SOURCE.cu   the recording shim to compile in the source's place
//   capture -- COMMAND...    run a program built with shims; gather what it recorded
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/children.h"
#include "common/file_util.h"
#include "harness/capture.h"
#include "harness/capture_gather.h"
#include "harness/capture_shim.h"
#include "harness/launcher_scan.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster capture shim SOURCE.cu [--out DIR] [--name NAME] [-I DIR]... [-D DEF]... [--json]
       kernelblaster capture [--out DIR] [--json] -- COMMAND [ARG...]

Records the calls a program makes to the host launchers of its kernel
sources, so that `kernelblaster harness synth` can write harnesses from
them (sizes, extents, outputs and values the program really used).

shim writes DIR/<stem>.capture.cu (default DIR: ./capture-shims) for
SOURCE.cu (read with libclang): it includes the source with each launcher
renamed and defines the launcher again, recording each call when
KERNELBLASTER_CAPTURE_FILE is set (with --name, also into
$KERNELBLASTER_CAPTURE_DIR/NAME.calls.jsonl when that is set) and calling
the original; with neither set a call costs one test of a flag, and no
path is compiled into the shim. Build the program with the shim compiled
instead of the source.

capture -- COMMAND runs the command with KERNELBLASTER_CAPTURE_FILE set to
DIR/calls.jsonl (default DIR: ./kernelblaster-capture), then writes one
DIR/<stem>.<launcher>.capture.json per launcher that was called. The first
call of each distinct shape is recorded; a call with a buffer outside device
memory is left out (and counted).

--json prints what was done as one JSON object instead of lines: shim
{"shim", "launchers", "include_dir"}; capture {"exit_code", "captures":
[{"file", "calls"}], "left_out", "unreadable", "errors"}.

Exit status: 0 captured, 1 nothing was recorded or the command failed,
2 misuse. kernelblaster_optimize() does the same for a source with no
harness, with the project's own runs (README: The one line).
)";

int shim(const CommandArgs& argv) {
  if (argv.size() < 2 || argv[1].empty() || argv[1][0] == '-') throw UsageError("capture shim needs SOURCE.cu");
  const std::string source = argv[1];
  Args args(CommandArgs(argv.begin() + 2, argv.end()), {"--out", "--name", "-I", "-D"}, {"--json"});
  if (!fs::is_regular_file(source)) throw UsageError("no such file: " + source);
  harness::ScanOptions opt;
  opt.include_dirs = args.values("-I");
  opt.definitions = args.values("-D");
  harness::SourceScan scan = harness::scan_source(source, opt);
  if (scan.launchers.empty()) {
    std::fprintf(stderr, "kernelblaster capture: %s defines no host launcher\n", source.c_str());
    return 1;
  }
  harness::infer_void_elements(scan);
  fs::path out = args.value("--out", "capture-shims");
  fs::create_directories(out);
  const std::string absolute = fs::absolute(source).lexically_normal().string();
  const std::string text = harness::capture_shim(scan.launchers, absolute, args.value("--name"), read_file(absolute));
  fs::path file = out / (fs::path(source).stem().string() + ".capture.cu");
  write_file_atomic(file.string(), text);
  const std::string include_dir = fs::path(absolute).parent_path().string();
  if (args.flag("--json")) {
    nlohmann::json launchers = nlohmann::json::array();
    for (const harness::Launcher& l : scan.launchers) launchers.push_back(l.name);
    nlohmann::json j = {{"shim", file.string()}, {"launchers", launchers}, {"include_dir", include_dir}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("wrote %s (%zu launcher%s; compile it with -I%s)\n", file.string().c_str(), scan.launchers.size(),
              scan.launchers.size() == 1 ? "" : "s", include_dir.c_str());
  return 0;
}

int run_command(const std::vector<std::string>& command, const std::string& capture_file) {
  std::fflush(stdout);
  pid_t pid = fork_child();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::setenv("KERNELBLASTER_CAPTURE_FILE", capture_file.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "kernelblaster capture: cannot run %s\n", command[0].c_str());
    _exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  forget_child(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

struct GatherReport {
  std::vector<std::pair<std::string, std::size_t>> files;  // capture file, calls in it
  harness::Gathered gathered;
};

// The recorded lines gathered into one capture file per launcher.
GatherReport gather_capture(const std::string& lines_path, const std::string& out_dir) {
  GatherReport rep;
  rep.gathered = harness::gather_recorded_calls(lines_path);
  fs::create_directories(out_dir);
  std::map<std::string, int> used;  // a launcher recorded with two signatures: a second file
  for (const harness::Capture& c : rep.gathered.captures) {
    std::string name = harness::capture_file_name(c);
    if (int n = ++used[name]; n > 1) name.insert(name.size() - std::string(".capture.json").size(), "." + std::to_string(n));
    const std::string file = (fs::path(out_dir) / name).string();
    write_file_atomic(file, harness::capture_to_json(c));
    rep.files.emplace_back(file, c.calls.size());
  }
  return rep;
}

// What capture -- COMMAND did, as one JSON object; exit status as the lines'.
int print_json(const GatherReport& rep, int rc) {
  nlohmann::json captures = nlohmann::json::array();
  for (const auto& [file, calls] : rep.files) captures.push_back({{"file", file}, {"calls", calls}});
  const harness::Gathered& g = rep.gathered;
  nlohmann::json j = {{"exit_code", rc},          {"captures", captures},     {"left_out", g.left_out},
                      {"unreadable", g.unreadable}, {"errors", g.errors}};
  std::printf("%s\n", j.dump(2).c_str());
  return rc != 0 || rep.files.empty() ? 1 : 0;
}

}  // namespace

int capture_command(const CommandArgs& argv, const std::string& self_exe) {
  (void)self_exe;
  return run_command("capture", kHelp, argv, [&]() -> int {
    if (!argv.empty() && argv[0] == "shim") return shim(argv);
    auto dash = std::find(argv.begin(), argv.end(), "--");
    if (dash == argv.end() || dash + 1 == argv.end())
      throw UsageError("capture needs '-- COMMAND' (or 'shim SOURCE.cu')");
    Args args(CommandArgs(argv.begin(), dash), {"--out"}, {"--json"});
    const std::vector<std::string> command(dash + 1, argv.end());
    const fs::path out = fs::absolute(args.value("--out", "kernelblaster-capture"));
    fs::create_directories(out);
    const std::string lines = (out / "calls.jsonl").string();
    fs::remove(lines);
    int rc = run_command(command, lines);
    GatherReport rep = gather_capture(lines, out.string());
    if (args.flag("--json")) return print_json(rep, rc);
    for (const auto& [file, calls] : rep.files) std::printf("captured %zu call%s: %s\n", calls, calls == 1 ? "" : "s", file.c_str());
    const harness::Gathered& g = rep.gathered;
    for (const std::string& e : g.errors) std::fprintf(stderr, "kernelblaster capture: %s\n", e.c_str());
    if (g.left_out) std::printf("%d call%s left out: a buffer outside device memory\n", g.left_out, g.left_out == 1 ? "" : "s");
    if (g.unreadable) std::printf("%d recorded line%s unreadable\n", g.unreadable, g.unreadable == 1 ? "" : "s");
    if (rc != 0) {
      std::fprintf(stderr, "kernelblaster capture: the command exited with %d%s\n", rc,
                   rep.files.empty() ? "" : " (what it recorded was kept)");
      return 1;
    }
    if (rep.files.empty()) {
      std::fprintf(stderr, "kernelblaster capture: no launcher call was recorded (was the program built with "
                           "`kernelblaster capture shim` sources?)\n");
      return 1;
    }
    return 0;
  });
}

}  // namespace kernelblaster
