#include "common/include_scan.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

std::string resolve_include(const std::string& dir, const std::string& name, bool quoted,
                            const std::vector<std::string>& include_dirs) {
  std::error_code ec;
  if (quoted) {
    fs::path p = fs::path(dir) / name;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  for (const auto& d : include_dirs) {
    fs::path p = fs::path(d) / name;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}

namespace {

// Breadth first from `pending`; `seen` ends every cycle, so the walk is
// bounded by the headers that exist, and a key covers all of them (a cap
// would let an edit beyond it reuse a stale result).
std::vector<std::string> walk(std::deque<std::string> pending, std::set<std::string> seen,
                              const std::vector<std::string>& include_dirs,
                              const std::vector<std::string>& skip_prefixes, std::vector<std::string> headers) {
  auto skipped = [&](const std::string& path) {
    return std::any_of(skip_prefixes.begin(), skip_prefixes.end(),
                       [&](const std::string& p) { return !p.empty() && path.rfind(p, 0) == 0; });
  };
  while (!pending.empty()) {
    const std::string file = pending.front();
    pending.pop_front();
    for (const auto& [name, quoted] : include_directives(read_text(file))) {
      std::string found = resolve_include(fs::path(file).parent_path().string(), name, quoted, include_dirs);
      if (found.empty() || skipped(found) || !seen.insert(found).second) continue;
      headers.push_back(found);
      pending.push_back(found);
    }
  }
  return headers;
}

}  // namespace

std::vector<std::pair<std::string, bool>> include_directives(const std::string& text) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<std::pair<std::string, bool>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find("include") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(line, m, kInclude)) out.emplace_back(m[2].str(), m[1].str() == "\"");
  }
  return out;
}

std::vector<std::string> scan_includes(const std::string& source, const std::vector<std::string>& include_dirs,
                                       const std::vector<std::string>& skip_prefixes) {
  std::error_code ec;
  const std::string start = fs::weakly_canonical(fs::absolute(source), ec).string();
  return walk({start}, {start}, include_dirs, skip_prefixes, {});
}

std::vector<std::string> scan_includes_of_text(const std::string& text, const std::string& dir,
                                               const std::vector<std::string>& include_dirs) {
  std::vector<std::string> direct;
  std::set<std::string> seen;
  for (const auto& [name, quoted] : include_directives(text)) {
    std::string found = resolve_include(dir, name, quoted, include_dirs);
    if (!found.empty() && seen.insert(found).second) direct.push_back(found);
  }
  return walk({direct.begin(), direct.end()}, seen, include_dirs, {}, direct);
}

}  // namespace kernelblaster
