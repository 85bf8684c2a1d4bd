#include "tuner/header_defines.h"

#include <algorithm>
#include <filesystem>

#include "common/file_util.h"
#include "common/include_scan.h"
#include "common/source_lines.h"
#include "common/source_text.h"
#include "tuner/candidate_source.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {

namespace {

// A flattened copy past these is refused: a candidate is compiled from it
// on every core, and a project of that size is better tuned by directive.
constexpr std::size_t kMaxFlattenedBytes = 4u << 20;
constexpr int kMaxExpansions = 2000;

bool system_header(const std::string& path) { return path.rfind("/usr/", 0) == 0 || path.rfind("/opt/", 0) == 0; }

// The #include lines of `text`: the name, whether quoted, the line's span and number.
struct IncludeLine {
  std::string name;
  bool quoted = false;
  Span span{};
  int line = 0;
};

std::vector<IncludeLine> include_lines(const std::string& text) {
  std::vector<IncludeLine> out;
  std::size_t begin = 0;
  for (int line = 1; begin <= text.size(); ++line) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const auto [directive, rest] = preprocessor_line(text.substr(begin, end - begin));
    if (directive == "include") {
      const std::string arg = trim(strip_comment(rest));
      if (arg.size() >= 2 && ((arg.front() == '"' && arg.back() == '"') || (arg.front() == '<' && arg.back() == '>')))
        out.push_back({arg.substr(1, arg.size() - 2), arg.front() == '"', {begin, end}, line});
    }
    if (end == text.size()) break;
    begin = end + 1;
  }
  return out;
}

// `#line N "path"` without its line break.
std::string line_to(int n, const std::string& path) {
  std::string d = line_directive(path);
  d.pop_back();
  return "#line " + std::to_string(n) + d.substr(std::string("#line 1").size());
}

// Expands the project includes of one file's text, in place.
class Flattener {
 public:
  Flattener(const std::vector<std::string>& include_dirs, const std::map<std::string, std::set<int>>& guarded)
      : m_dirs(include_dirs), m_guarded(guarded) {}

  // The text of the header at `path` as a block that takes an include's
  // place (its own includes expanded), or "" where it is not expanded.
  std::string header_block(const std::string& path, std::vector<std::string>& stack) {
    std::string text;
    if (std::find(stack.begin(), stack.end(), path) != stack.end() || !read_file_if_present(path, &text)) return "";
    if (++m_expansions > kMaxExpansions) {
      m_too_large = true;
      return "";
    }
    stack.push_back(path);
    const auto lines = m_guarded.find(path);
    std::string body = expand(text, path, lines == m_guarded.end() ? std::set<int>{} : lines->second, stack);
    stack.pop_back();
    if (m_too_large) return "";
    std::string once;
    if (body.find(kOnceMarker) != std::string::npos) {  // `#pragma once`: a guarded block, read once
      once = "KERNELBLASTER_ONCE_" + std::to_string(std::hash<std::string>{}(path));
      body.replace(body.find(kOnceMarker), std::string(kOnceMarker).size(), "");
    }
    return (once.empty() ? "" : "#ifndef " + once + "\n#define " + once + "\n") + line_directive(path) + body +
           (once.empty() ? "" : "#endif\n");
  }

  // `text` (of the file at `path`) with each project include expanded, the
  // defines on `guarded_lines` under #ifndef, `#pragma once` marked.
  std::string expand(const std::string& text, const std::string& path, const std::set<int>& guarded_lines,
                     std::vector<std::string>& stack) {
    std::string out;
    std::size_t begin = 0;
    const std::string dir = fs::path(path).parent_path().string();
    for (int n = 1; begin < text.size(); ++n) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      const std::string raw = text.substr(begin, end - begin);
      const auto [directive, rest] = preprocessor_line(raw);
      std::string replaced;
      if (directive == "pragma" && trim(strip_comment(rest)) == "once") {
        replaced = kOnceMarker;
      } else if (directive == "define" && guarded_lines.count(n)) {
        const std::string name = identifiers(rest).empty() ? "" : identifiers(rest).front();
        replaced = "#ifndef " + name + "\n" + raw + "\n#endif\n" + line_to(n + 1, path);
      } else if (directive == "include") {
        replaced = included(raw, rest, dir, n, path, stack);
      }
      out += (replaced.empty() ? raw : replaced) + "\n";
      if (out.size() > kMaxFlattenedBytes) m_too_large = true;
      if (m_too_large) return "";
      begin = end + 1;
    }
    return out;
  }

  // An #include line's expansion, and the #line back to the includer; ""
  // where it stays an #include (a system header, one not found, a cycle).
  std::string included(const std::string& raw, const std::string& rest, const std::string& dir, int n,
                       const std::string& includer, std::vector<std::string>& stack) {
    const std::string arg = trim(strip_comment(rest));
    if (arg.size() < 2) return "";
    const bool quoted = arg.front() == '"';
    const std::string found = resolve_include(dir, arg.substr(1, arg.size() - 2), quoted, m_dirs);
    if (found.empty() || system_header(found)) return "";
    const std::string block = header_block(found, stack);
    return block.empty() ? (m_too_large ? "" : raw) : block + line_to(n + 1, includer);
  }

  bool too_large() const { return m_too_large; }
  static constexpr const char* kOnceMarker = "\x01KERNELBLASTER_PRAGMA_ONCE\x01";

 private:
  const std::vector<std::string>& m_dirs;
  const std::map<std::string, std::set<int>>& m_guarded;
  int m_expansions = 0;
  bool m_too_large = false;
};

}  // namespace

std::vector<ProjectHeader> project_headers(const std::string& text, const std::string& file,
                                           const std::vector<std::string>& include_dirs,
                                           std::vector<std::string>* notes) {
  std::error_code ec;
  for (const std::string& d : include_dirs)
    if (!fs::is_directory(d, ec)) notes->push_back("the include directory " + d + " does not exist");
  const std::string dir = fs::path(file).parent_path().string();
  for (const IncludeLine& l : include_lines(text))
    if (l.quoted && resolve_include(dir, l.name, true, include_dirs).empty())
      notes->push_back("\"" + l.name + "\" (included at line " + std::to_string(l.line) +
                       ") was not found beside the source or in the include directories");
  std::vector<ProjectHeader> out;
  for (const std::string& path : scan_includes_of_text(text, dir, include_dirs)) {
    ProjectHeader h;
    h.path = path;
    if (!system_header(path) && read_file_if_present(path, &h.text)) out.push_back(std::move(h));
  }
  return out;
}

std::vector<std::string> lines_inside_guard(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  std::vector<std::size_t> directives;  // the first two and the last directive lines
  std::string guard;
  for (std::size_t i = 0; i < lines.size() && directives.size() < 2; ++i) {
    const std::string t = trim(strip_comment(lines[i]));
    if (t.empty()) continue;
    const auto [directive, rest] = preprocessor_line(t);
    const bool opens = directives.empty() && directive == "ifndef";
    const bool defines_it = directives.size() == 1 && directive == "define" && !guard.empty() && trim(rest) == guard;
    if (!opens && !defines_it) return lines;
    if (opens) guard = trim(rest);
    directives.push_back(i);
  }
  for (std::size_t i = lines.size(); i-- > 0;) {
    const std::string t = trim(strip_comment(lines[i]));
    if (t.empty()) continue;
    if (directives.size() != 2 || preprocessor_line(t).first != "endif") return lines;
    directives.push_back(i);
    break;
  }
  for (std::size_t i : directives) lines[i].clear();
  return lines;
}

std::vector<Edit> flattened_includes(const std::string& text, const std::string& file,
                                     const std::vector<std::string>& include_dirs,
                                     const std::map<std::string, std::set<int>>& guarded, std::string* why) {
  Flattener f(include_dirs, guarded);
  std::vector<Edit> edits;
  const std::string source = fs::absolute(file).lexically_normal().string();
  const std::string dir = fs::path(source).parent_path().string();
  std::vector<std::string> stack = {source};
  for (const IncludeLine& l : include_lines(text)) {
    const std::string found = resolve_include(dir, l.name, l.quoted, include_dirs);
    if (found.empty() || system_header(found)) continue;
    const std::string block = f.header_block(found, stack);
    if (!block.empty()) edits.push_back({l.span, block + line_to(l.line + 1, source)});
  }
  if (f.too_large()) {
    *why = "the source with its project headers flattened passes " + std::to_string(kMaxFlattenedBytes >> 20) +
           " MiB or " + std::to_string(kMaxExpansions) + " includes";
    return {};
  }
  return edits;
}

}  // namespace kernelblaster::tuner
