// kernelblaster report: what a run did, as one self-contained HTML page and
// the same content as Markdown (tool/src/report).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/clock.h"
#include "common/file_util.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/report.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster report PATH [--html FILE] [--markdown FILE] [--json] [--from-build]

Writes one self-contained HTML page (inline SVG and CSS, no scripts, nothing
fetched) and the same content as Markdown, for
  a build tree (a CMake build directory using kernelblaster_optimize()): per
      target and source, what was compiled and why, every GPU's result from
      the results cache and the lockfile, the CTest gates' last verdicts;
  a tuning run's log (tune --log FILE): best so far against evaluations and
      seconds, every candidate's status, the winner, the roofline position;
  an optimize run (optimize --out DIR): the steps by trajectory with their
      attempts, verdicts and speedups, the kept kernel against the original,
      tokens and cost, what the KB learnt;
  a directory of optimize runs (optimize over a KernelBench directory): the
      per-problem table, the geometric-mean speedup and the fast_p curve.
Each names the user's source and the GPU.

  --html FILE      where the page goes (default: DIR/report.html, a build
                   tree's kernelblaster_report.html, or the log's name with
                   .html)
  --markdown FILE  where the Markdown goes (default: beside the page, .md)
  --json           print {"kind", "html", "markdown", "seconds"}
  --from-build     as the build runs it: one line naming the page, and exit 0
                   even when no report can be made (the line says why)

Exit status: 0 written, 2 bad usage or a PATH that holds no run (0 with
--from-build).
)";

// The build's own refresh (kernelblaster_optimize()'s report rule): it never
// fails the build; what went wrong is the one line.
int refresh_for_build(const std::string& path) {
  std::string why;
  const std::string html = report::refresh_report(path, &why);
  if (html.empty()) std::printf("kernelblaster report: not written: %s\n", why.c_str());
  else std::printf("kernelblaster report: %s\n", html.c_str());
  return 0;
}

}  // namespace

int report_command(const CommandArgs& argv, const std::string& self_exe) {
  (void)self_exe;
  return run_command("report", kHelp, argv, [&]() -> int {
    if (argv.empty() || argv.front().rfind("-", 0) == 0) throw UsageError("give the PATH of a run first");
    const std::string path = argv.front();
    Args args(CommandArgs(argv.begin() + 1, argv.end()), {"--html", "--markdown"}, {"--json", "--from-build"});
    if (args.flag("--from-build")) return refresh_for_build(path);
    const auto t0 = std::chrono::steady_clock::now();
    report::Report r = report::make_report(path);
    const std::string html = args.value("--html", r.html_path);
    std::string markdown = args.value("--markdown");
    if (markdown.empty())
      markdown = html.size() > 5 && html.substr(html.size() - 5) == ".html" ? html.substr(0, html.size() - 5) + ".md"
                                                                             : r.markdown_path;
    write_file_atomic(html, report::to_html(r.document));
    write_file_atomic(markdown, report::to_markdown(r.document));
    const double seconds = seconds_since(t0);
    if (args.flag("--json")) {
      nlohmann::json j = {{"kind", report::kind_name(r.kind)}, {"html", html}, {"markdown", markdown}, {"seconds", seconds}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("kernelblaster: report of %s: %s (and %s)\n", path.c_str(), html.c_str(), markdown.c_str());
    }
    return 0;
  });
}

}  // namespace kernelblaster
