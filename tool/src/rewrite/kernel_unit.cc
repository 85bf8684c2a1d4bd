#include "rewrite/kernel_unit.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "common/file_util.h"
#include "common/include_scan.h"
#include "common/source_lines.h"
#include "common/source_text.h"
#include "rewrite/code_blocks.h"

namespace kernelblaster::rewrite {
namespace fs = std::filesystem;
namespace {

// Words between `__global__` and a kernel's name that take a parenthesized
// argument of their own.
bool is_attribute(const std::string& word) {
  return word == "__launch_bounds__" || word == "__attribute__" || word == "__declspec" || word == "alignas" ||
         word == "__align__" || word == "__maxnreg__" || word == "__cluster_dims__";
}

// Where the declaration holding `at` starts: after the last `;`, `{` or `}`
// before it (file scope or a namespace's), spaces skipped.
std::size_t statement_start(const std::string& code, std::size_t at) {
  std::size_t b = at;
  while (b > 0 && code[b - 1] != ';' && code[b - 1] != '{' && code[b - 1] != '}') --b;
  while (b < at && (code[b] == ' ' || code[b] == '\t' || code[b] == '\n' || code[b] == '\r')) ++b;
  return b;
}

// The kernel whose `__global__` is at `at`: its name and its body's closing
// brace; false for a declaration or text that is not one.
bool definition_at(const std::string& code, std::size_t at, std::string* name, std::size_t* close) {
  std::size_t p = at + std::string("__global__").size();
  while (p < code.size()) {
    const std::size_t open = code.find_first_of("(;{", p);
    if (open == std::string::npos || code[open] != '(') return false;
    const std::string word = word_before(code, open);
    const std::size_t shut = matching(code, open, '(', ')');
    if (shut == std::string::npos) return false;
    if (is_attribute(word) || word.empty()) {
      p = shut + 1;
      continue;
    }
    const std::size_t brace = code.find_first_of(";{", shut + 1);
    if (brace == std::string::npos || code[brace] != '{') return false;
    const std::size_t end = matching(code, brace, '{', '}');
    if (end == std::string::npos) return false;
    *name = word;
    *close = end;
    return true;
  }
  return false;
}

bool under(const fs::path& path, const fs::path& root) {
  const fs::path rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
}

fs::path normal(const std::string& p) {
  std::error_code ec;
  return fs::weakly_canonical(fs::absolute(fs::path(p)), ec);
}

std::string line_directive(int line, const std::string& file) {
  std::string quoted;
  for (char c : file) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return "#line " + std::to_string(line) + " \"" + quoted + "\"\n";
}

}  // namespace

std::vector<KernelDefinition> kernels_in_text(const std::string& text, const std::string& file) {
  const std::string code = without_preprocessor_lines(code_only(text));
  std::vector<KernelDefinition> out;
  std::size_t after = 0;  // a kernel inside the previous one's span is not another
  for (std::size_t at : word_positions(code, "__global__")) {
    if (at < after) continue;
    KernelDefinition d;
    std::size_t close = 0;
    if (!definition_at(code, at, &d.name, &close)) continue;
    d.file = file;
    d.span = {statement_start(code, at), close + 1};
    d.line = line_at(text, d.span.begin);
    d.text = text.substr(d.span.begin, d.span.end - d.span.begin);
    d.is_template = code.compare(d.span.begin, 8, "template") == 0;
    after = d.span.end;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<KernelDefinition> kernel_definitions(const std::string& source, const std::vector<std::string>& include_dirs,
                                                 const std::string& project_root) {
  const fs::path root = normal(project_root);
  std::vector<std::string> files = {normal(source).string()};
  for (const std::string& h : scan_includes(source, include_dirs))
    if (under(normal(h), root)) files.push_back(normal(h).string());
  std::vector<KernelDefinition> out;
  for (const std::string& f : files)
    for (KernelDefinition& d : kernels_in_text(read_file(f), f)) out.push_back(std::move(d));
  return out;
}

std::vector<KernelDefinition> named(const std::vector<KernelDefinition>& all, const std::string& name) {
  std::vector<KernelDefinition> out;
  for (const KernelDefinition& d : all)
    if (d.name == name) out.push_back(d);
  return out;
}

std::vector<std::string> launching_functions(const std::string& text, const std::string& kernel) {
  const std::string code = without_preprocessor_lines(code_only(text));
  std::vector<std::string> out;
  std::size_t after = 0;
  for (const LaunchSpans& l : launch_arg_spans(code)) {
    if (l.at < after || launched_kernel(code, l.at) != kernel) continue;
    // The function holding the launch: the innermost `{` before it whose
    // match closes after it, and at file scope a `)` before that brace.
    std::size_t depth_open = std::string::npos;
    for (std::size_t p = l.at; p-- > 0;) {
      if (code[p] != '{') continue;
      const std::size_t shut = matching(code, p, '{', '}');
      if (shut == std::string::npos || shut < l.at) continue;
      std::size_t q = p;
      while (q > 0 && (code[q - 1] == ' ' || code[q - 1] == '\t' || code[q - 1] == '\n' || code[q - 1] == '\r')) --q;
      if (q > 0 && code[q - 1] == ')') depth_open = p;  // keep going out: the outermost function body wins
    }
    if (depth_open == std::string::npos) continue;
    const std::size_t shut = matching(code, depth_open, '{', '}');
    const std::size_t begin = statement_start(code, depth_open);
    out.push_back(text.substr(begin, shut + 1 - begin));
    after = shut + 1;
  }
  return out;
}

namespace {

// Writes a file's text into one translation unit: project headers in place
// of their first #include, later ones dropped, `#pragma once` dropped (the
// text is the main file now), and a #line after every inlined header.
class Amalgamation {
 public:
  Amalgamation(std::vector<std::string> include_dirs, fs::path root, const std::vector<Replacement>& replacements)
      : m_dirs(std::move(include_dirs)), m_root(std::move(root)), m_replacements(replacements) {}

  std::string file(const fs::path& path) {
    const std::string text = read_file(path.string());
    const std::string name = path.string();
    // This file's replacements, in the order of their places.
    std::vector<const Replacement*> here;
    for (const Replacement& r : m_replacements)
      if (normal(r.definition.file) == path) here.push_back(&r);
    std::sort(here.begin(), here.end(),
              [](const Replacement* a, const Replacement* b) { return a->definition.span.begin < b->definition.span.begin; });
    std::string out = line_directive(1, name);
    std::size_t from = 0;
    int line = 1;
    for (const Replacement* r : here) {
      const KernelDefinition& d = r->definition;
      if (d.span.begin < from || d.span.end > text.size() ||
          text.compare(d.span.begin, d.text.size(), d.text) != 0)
        throw std::runtime_error("kernel " + d.name + " is no longer where it was read in " + name);
      m_placed.insert(r);
      // The rest of the closing brace's line keeps that line's number.
      const int after = line_at(text, d.span.end);
      out += lines(text.substr(from, d.span.begin - from), line, path) + "\n" + line_directive(d.line, name) + r->text +
             "\n" + line_directive(after, name);
      from = d.span.end;
      line = after;
    }
    return out + lines(text.substr(from), line, path);
  }
  bool placed(const Replacement& r) const { return m_placed.count(&r) > 0; }
  void mark(const fs::path& p) { m_done.insert(p.string()); }

 private:
  // `text`, whose first line is line `first` of `path`.
  std::string lines(const std::string& text, int first, const fs::path& path) {
    std::string out;
    std::size_t at = 0;
    for (int n = first; at < text.size(); ++n) {
      std::size_t end = text.find('\n', at);
      end = end == std::string::npos ? text.size() : end + 1;
      const std::string line = text.substr(at, end - at);
      at = end;
      const auto inc = include_directives(line);
      if (!inc.empty()) {
        const std::string found =
            resolve_include(path.parent_path().string(), inc[0].first, inc[0].second, m_dirs);
        if (!found.empty() && under(normal(found), m_root)) {
          if (m_done.insert(normal(found).string()).second)
            out += file(normal(found)) + "\n" + line_directive(n + 1, path.string());
          else
            out += "\n";
          continue;
        }
      }
      const std::size_t b = line.find_first_not_of(" \t");
      out += b != std::string::npos && line.compare(b, 1, "#") == 0 && line.find("pragma") != std::string::npos &&
                     line.find("once") != std::string::npos
                 ? std::string("\n")
                 : line;
    }
    return out;
  }

  std::vector<std::string> m_dirs;
  fs::path m_root;
  const std::vector<Replacement>& m_replacements;
  std::set<std::string> m_done;
  std::set<const Replacement*> m_placed;
};

}  // namespace

std::string source_with_kernels(const std::string& source, const std::vector<std::string>& include_dirs,
                                const std::string& project_root, const std::vector<Replacement>& replacements) {
  const fs::path src = normal(source);
  Amalgamation a(include_dirs, normal(project_root), replacements);
  a.mark(src);
  std::string out = a.file(src);
  for (const Replacement& r : replacements)
    if (!a.placed(r))
      throw std::runtime_error(normal(r.definition.file).string() + " is not among the files " + src.string() +
                               " reaches");
  return out;
}

std::string source_with_kernel(const std::string& source, const std::vector<std::string>& include_dirs,
                               const std::string& project_root, const KernelDefinition& def,
                               const std::string& definition) {
  return source_with_kernels(source, include_dirs, project_root, {Replacement{def, definition}});
}

std::vector<KernelUnit> kernel_units(const std::string& source, const std::vector<std::string>& include_dirs,
                                     const std::string& project_root) {
  // The launching code may be in the headers too (llm.c's encoder.cuh
  // defines its kernels and the host functions that launch them).
  const std::string text = source_with_kernels(source, include_dirs, project_root, {});
  std::vector<KernelUnit> out;
  for (KernelDefinition& d : kernel_definitions(source, include_dirs, project_root)) {
    KernelUnit u;
    u.launchers = launching_functions(text, d.name);
    u.definition = std::move(d);
    u.source_path = normal(source).string();
    u.include_dirs = include_dirs;
    u.project_root = normal(project_root).string();
    out.push_back(std::move(u));
  }
  return out;
}

std::string profiled_kernel_name(const std::string& profiled) {
  // The name ends where its template arguments or parameters start.
  std::size_t end = profiled.find_first_of("<(");
  if (end == std::string::npos) end = profiled.size();
  std::size_t b = end;
  while (b > 0 && is_identifier_char(profiled[b - 1])) --b;
  return profiled.substr(b, end - b);
}

std::vector<int> units_by_time(const std::vector<KernelUnit>& units, const std::vector<std::string>& kernels_by_time) {
  std::vector<int> out;
  for (const std::string& k : kernels_by_time) {
    const std::string name = profiled_kernel_name(k);
    for (std::size_t i = 0; i < units.size(); ++i)
      if (units[i].definition.name == name && std::find(out.begin(), out.end(), static_cast<int>(i)) == out.end())
        out.push_back(static_cast<int>(i));
  }
  return out;
}

int unit_by_time(const std::vector<KernelUnit>& units, const std::vector<std::string>& kernels_by_time) {
  const std::vector<int> order = units_by_time(units, kernels_by_time);
  return order.empty() ? -1 : order.front();
}

std::string unit_shapes(const std::vector<ShapeLine>& sizes, const std::vector<std::string>& called,
                        const KernelUnit& u) {
  std::vector<std::string> prefixes;
  if (called.size() > 1)
    for (const std::string& name : called)
      for (const std::string& code : u.launchers)
        if (defines_function(code, name)) prefixes.push_back(name + "_");
  std::string shapes;
  for (const ShapeLine& size : sizes) {
    std::string line = size.label.empty() ? "size" : size.label;
    for (const auto& dim_value : size.dims) {
      const std::string& dim = dim_value.first;
      const bool own = prefixes.empty() || std::any_of(prefixes.begin(), prefixes.end(), [&dim](const std::string& p) {
                         return dim.compare(0, p.size(), p) == 0;
                       });
      if (own) line += " " + dim + "=" + std::to_string(dim_value.second);
    }
    shapes += line + "\n";
  }
  return shapes;
}

}  // namespace kernelblaster::rewrite
