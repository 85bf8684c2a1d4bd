// kernelblaster harness init: a native harness drafted for each host
// launcher of a kernel source (harness/), so tuning needs no harness written
// from nothing. kernelblaster harness synth: one synthesized from the calls a
// program recorded (a capture).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "harness/capture_harness.h"
#include "harness/harness_writer.h"
#include "harness/launcher_scan.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster harness init SOURCE.cu [--out DIR] [-I DIR]... [-D DEF]... [--force] [--json]
       kernelblaster harness synth CAPTURE.json [--out DIR] [--force] [--json]
       kernelblaster harness export HARNESS.cu... --out DIR [--force] [--json]

Reads SOURCE.cu with libclang and writes one native harness for it,
DIR/<stem>_harness.cu, which kernelblaster_optimize() pairs with the source
by name: it calls every host launcher the source defines (a function that
is not __global__ or __device__, takes a pointer and launches a kernel), so
every kernel a tuning changes runs. The harness compiles as written; lines
marked CONFIRM are guesses (shapes, sizes, outputs, values) to check.

  --out DIR   where to write (default: ./harness)
  -I DIR, -D DEF  what the source needs to be read (include directories, definitions)
  --force     overwrite existing harness files
  --json      print what was done as one JSON object: {"harness", "written"
              (false: kept as it was), "launchers", "confirm"}; export:
              {"exported", "kept", "not_synthesized"}

export copies harnesses a build synthesized (kernelblaster_optimize() of a
source with no harness: kernelblaster_generated/<target>/harness/) into the
source tree, DIR normally the HARNESS_DIR (the build target
kernelblaster_harness_export does this): there they are the sources' own
harnesses, to review and commit. Existing files are kept without --force.

synth reads a capture (the calls a program made to one launcher, recorded
while it ran: format in tool/src/harness/capture.h) and writes
DIR/<stem>_harness.cu: the recorded calls are its sizes (the two largest
timed, the smallest of three or more for validation), the buffers have the
recorded extents and types, what a call changed is an output, scalars take
their recorded values. Nothing in it is a guess unless it says CONFIRM.

Exit status: 0 written, 1 no launcher found, 2 misuse or an unreadable source
or capture.
)";

// A drafted harness written to `file` (or kept, where it exists and --force
// is not given), said as lines or as one JSON object.
int write_draft(const harness::HarnessDraft& d, const fs::path& file, const std::vector<std::string>& launchers,
                const Args& args) {
  const bool keep = fs::exists(file) && !args.flag("--force");
  if (!keep) write_file_atomic(file.string(), d.text);
  if (args.flag("--json")) {
    nlohmann::json j = {{"harness", file.string()}, {"written", !keep}, {"launchers", launchers}, {"confirm", d.confirm}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (keep) {
    std::printf("kept %s: it exists (--force overwrites)\n", file.string().c_str());
    return 0;
  }
  std::string names;
  for (const std::string& l : launchers) names += (names.empty() ? "" : ", ") + l;
  std::printf("wrote %s%s, %zu thing%s to confirm\n", file.string().c_str(), names.empty() ? "" : (" for " + names).c_str(),
              d.confirm.size(), d.confirm.size() == 1 ? "" : "s");
  for (const std::string& c : d.confirm) std::printf("  confirm: %s\n", c.c_str());
  return 0;
}

int synth_command(const CommandArgs& argv) {
  if (argv.size() < 2 || argv[1].empty() || argv[1][0] == '-') throw UsageError("harness synth needs CAPTURE.json");
  const std::string path = argv[1];
  Args args(CommandArgs(argv.begin() + 2, argv.end()), {"--out"}, {"--force", "--json"});
  if (!fs::is_regular_file(path)) throw UsageError("no such file: " + path);
  harness::HarnessDraft d = harness::synthesize_harness(harness::parse_capture(read_file(path), path));
  fs::path out = args.value("--out", "harness");
  fs::create_directories(out);
  return write_draft(d, out / d.file_name, {}, args);
}

int export_command(const CommandArgs& argv) {
  // The files first, then the options.
  std::size_t i = 1;
  std::vector<std::string> files;
  for (; i < argv.size() && !argv[i].empty() && argv[i][0] != '-'; ++i) files.push_back(argv[i]);
  Args args(CommandArgs(argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end()), {"--out"}, {"--force", "--json"});
  const bool json = args.flag("--json");
  nlohmann::json done = {{"exported", nlohmann::json::array()}, {"kept", nlohmann::json::array()},
                         {"not_synthesized", nlohmann::json::array()}};
  const std::string out = args.value("--out");
  if (out.empty()) throw UsageError("harness export needs --out DIR");
  if (files.empty()) throw UsageError("harness export needs the harness files to copy");
  for (const std::string& h : files) {
    fs::path to = fs::path(out) / fs::path(h).filename();
    if (!fs::is_regular_file(h)) {
      // Nothing synthesized yet is not a failure of the export.
      done["not_synthesized"].push_back(h);
      if (!json)
        std::printf("nothing to export for %s yet: no harness has been synthesized (the project's runs record calls, "
                    "the next build synthesizes it)\n",
                    fs::path(h).filename().string().c_str());
    } else if (fs::exists(to) && !args.flag("--force")) {
      done["kept"].push_back(to.string());
      if (!json) std::printf("kept %s: it exists (--force overwrites)\n", to.string().c_str());
    } else {
      fs::create_directories(out);
      write_file_atomic(to.string(), read_file(h));
      done["exported"].push_back(to.string());
      if (!json) std::printf("exported %s\n", to.string().c_str());
    }
  }
  if (json) std::printf("%s\n", done.dump(2).c_str());
  return 0;
}

}  // namespace

int harness_command(const CommandArgs& argv, const std::string& self_exe) {
  (void)self_exe;
  return run_command("harness", kHelp, argv, [&]() -> int {
    if (!argv.empty() && argv[0] == "synth") return synth_command(argv);
    if (!argv.empty() && argv[0] == "export") return export_command(argv);
    if (argv.empty() || argv[0] != "init") throw subcommand_error(argv, {"init", "synth", "export"});
    if (argv.size() < 2 || argv[1].empty() || argv[1][0] == '-') throw UsageError("harness init needs SOURCE.cu");
    std::string source = argv[1];
    Args args(CommandArgs(argv.begin() + 2, argv.end()), {"--out", "-I", "-D"}, {"--force", "--json"});
    if (!fs::is_regular_file(source)) throw UsageError("no such file: " + source);
    harness::ScanOptions opt;
    opt.include_dirs = args.values("-I");
    opt.definitions = args.values("-D");
    harness::SourceScan scan = harness::scan_source(source, opt);
    std::string name = fs::path(source).filename().string();
    if (scan.launchers.empty()) {
      std::fprintf(stderr, "kernelblaster harness init: %s defines no host launcher (a function that takes a pointer "
                   "and is not __global__ or __device__)\n", name.c_str());
      return 1;
    }
    fs::path out = args.value("--out", "harness");
    fs::create_directories(out);
    std::string stem = fs::path(source).stem().string();
    // One file for the source, calling every launcher: a tuning changes the
    // whole file, and the build pairs <stem>_harness.cu with it as it is.
    harness::HarnessDraft d = harness::draft_harness(scan.launchers, name, stem, scan.unread);
    std::vector<std::string> launchers;
    for (const harness::Launcher& l : scan.launchers) launchers.push_back(l.name);
    return write_draft(d, out / d.file_name, launchers, args);
  });
}

}  // namespace kernelblaster
