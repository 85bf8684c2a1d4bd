#include "report/report.h"

#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "report/build_report.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/optimize_report.h"
#include "report/tune_report.h"

namespace kernelblaster::report {

namespace fs = std::filesystem;

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::tune_log: return "tune_log";
    case Kind::optimize_run: return "optimize_run";
    case Kind::directory_run: return "directory_run";
    case Kind::build_tree: return "build_tree";
  }
  return "?";
}

Report make_report(const std::string& path) {
  Report r;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path dir(path);
    r.html_path = (dir / "report.html").string();
    r.markdown_path = (dir / "report.md").string();
    if (is_build_tree(path)) {
      r.kind = Kind::build_tree;
      r.document = build_report(path);
      r.html_path = (dir / "kernelblaster_report.html").string();
      r.markdown_path = (dir / "kernelblaster_report.md").string();
    } else if (is_optimize_run(path)) {
      r.kind = Kind::optimize_run;
      r.document = optimize_report(path);
    } else if (is_directory_run(path)) {
      r.kind = Kind::directory_run;
      r.document = directory_report(path);
    } else {
      throw std::runtime_error(path + ": no run here (an optimize --out directory has summary.json and trajectory.json; a build tree has CMakeCache.txt)");
    }
    return r;
  }
  const std::string text = read_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& x) {
    throw std::runtime_error(path + ": not JSON (" + std::string(x.what()) + ")");
  }
  if (!is_tune_log(j)) throw std::runtime_error(path + ": not a tuning run's log (tune --log FILE writes one)");
  r.kind = Kind::tune_log;
  r.document = tune_report(j, path);
  std::string stem = path.size() > 5 && path.substr(path.size() - 5) == ".json" ? path.substr(0, path.size() - 5) : path;
  r.html_path = stem + ".html";
  r.markdown_path = stem + ".md";
  return r;
}

std::string refresh_report(const std::string& path, std::string* why) {
  try {
    Report r = make_report(path);
    write_file_atomic(r.html_path, to_html(r.document));
    write_file_atomic(r.markdown_path, to_markdown(r.document));
    return r.html_path;
  } catch (const std::exception& x) {
    *why = x.what();
    return "";
  }
}

}  // namespace kernelblaster::report
