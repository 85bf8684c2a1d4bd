// `kernelblaster report PATH`: which kind of run PATH holds, and its
// Document. Kinds: a tuning run's log (tune --log FILE), an optimize run
// (optimize --out DIR), a directory of optimize runs (optimize over a
// KernelBench directory), a build tree using kernelblaster_optimize().
#pragma once

#include <string>

#include "report/document.h"

namespace kernelblaster::report {

enum class Kind { tune_log, optimize_run, directory_run, build_tree };
const char* kind_name(Kind kind);

struct Report {
  Kind kind = Kind::tune_log;
  Document document;
  std::string html_path, markdown_path;  // where they are written by default
};

// Throws std::runtime_error (one line) when PATH is none of the kinds or
// cannot be read.
Report make_report(const std::string& path);

// Writes PATH's report (HTML and Markdown) to its default place, for the
// build and the gates: never throws; returns the page's path, or "" with
// `why` set.
std::string refresh_report(const std::string& path, std::string* why);

}  // namespace kernelblaster::report
