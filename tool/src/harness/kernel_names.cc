#include "harness/kernel_names.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/source_lines.h"
#include "common/source_text.h"

namespace fs = std::filesystem;

namespace kernelblaster::harness {
namespace {

// Comments and string literals become spaces (lines kept).
std::string code_only(const std::string& t) {
  std::string out = t;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      std::size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    } else if (out[i] == '"' || out[i] == '\'') {
      const char q = out[i];
      for (++i; i < out.size() && out[i] != q && out[i] != '\n'; ++i) {
        if (out[i] == '\\' && i + 1 < out.size()) out[i++] = ' ';
        out[i] = ' ';
      }
    }
  }
  return out;
}


// After `at` (just past "__global__"): the kernel's name when what follows is
// a definition ("void __launch_bounds__(256) name(...) {").
std::string definition_name(const std::string& code, std::size_t at) {
  std::size_t i = at;
  std::string last;
  while (i < code.size()) {
    char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (is_identifier_char(c)) {
      std::size_t s = i;
      while (i < code.size() && is_identifier_char(code[i])) ++i;
      last = code.substr(s, i - s);
    } else if (c == '(') {
      int depth = 0;
      std::size_t j = i;
      for (; j < code.size(); ++j) {
        if (code[j] == '(') ++depth;
        if (code[j] == ')' && --depth == 0) break;
      }
      if (last == "__launch_bounds__" || last == "__attribute__" || last == "__cluster_dims__") {
        i = j + 1;
        last.clear();
        continue;
      }
      std::size_t k = j + 1;
      while (k < code.size() && std::isspace(static_cast<unsigned char>(code[k]))) ++k;
      return k < code.size() && code[k] == '{' ? last : "";
    } else if (c == '<' || c == '>' || c == '*' || c == '&' || c == ':') {
      ++i;
    } else {
      return "";  // ';', '{', '=': no function definition here
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> kernel_definitions_in_text(const std::string& text) {
  const std::string code = code_only(text);
  std::vector<std::string> names;
  for (std::size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 1)) {
    if ((at > 0 && is_identifier_char(code[at - 1])) || (at + 10 < code.size() && is_identifier_char(code[at + 10]))) continue;
    std::string name = definition_name(code, at + 10);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::vector<std::size_t> kernel_parameter_counts(const std::string& text, const std::string& name) {
  const std::string code = code_only(text);
  std::vector<std::size_t> counts;
  for (std::size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 1)) {
    if ((at > 0 && is_identifier_char(code[at - 1])) || (at + 10 < code.size() && is_identifier_char(code[at + 10]))) continue;
    if (definition_name(code, at + 10) != name) continue;
    // The definition's parameter list: the first `name(` after __global__.
    std::size_t open = std::string::npos;
    for (std::size_t p : word_positions(code.substr(at), name)) {
      const std::size_t o = code.find_first_not_of(" \t\n", at + p + name.size());
      if (o != std::string::npos && code[o] == '(') {
        open = o;
        break;
      }
    }
    const std::size_t close = open == std::string::npos ? open : matching(code, open, '(', ')');
    if (close == std::string::npos) continue;
    std::vector<std::string> params = split_outside_brackets(code.substr(open + 1, close - open - 1), ',', "([{<", ")]}>");
    const std::string first = params.size() == 1 ? trim(params[0]) : "";
    const std::size_t count = params.size() == 1 && (first.empty() || first == "void") ? 0 : params.size();
    if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
  }
  return counts;
}

std::vector<std::string> kernels_defined_in(const std::string& source, const std::vector<std::string>& include_dirs,
                                            const std::string& toolkit_include) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<fs::path> todo = {fs::absolute(source).lexically_normal()};
  while (!todo.empty() && seen.size() < 200) {
    fs::path file = todo.back();
    todo.pop_back();
    if (!seen.insert(file.string()).second) continue;
    std::ifstream in(file);
    if (!in) continue;
    std::string text((std::istreambuf_iterator<char>(in)), {});
    for (const std::string& n : kernel_definitions_in_text(text))
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, kInclude)) continue;
      std::vector<fs::path> where = {file.parent_path()};
      for (const std::string& d : include_dirs) where.emplace_back(d);
      for (const fs::path& d : where) {
        fs::path p = (d / m[1].str()).lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) continue;
        if (!toolkit_include.empty() && p.string().rfind(toolkit_include, 0) == 0) break;
        todo.push_back(fs::absolute(p).lexically_normal());
        break;
      }
    }
  }
  return names;
}

namespace {

// The body of the definition of `function` in `code`: [open brace, close brace].
bool body_of(const std::string& code, const std::string& function, std::size_t* open, std::size_t* close) {
  for (std::size_t p = code.find(function); p != std::string::npos; p = code.find(function, p + 1)) {
    const bool whole = (p == 0 || !is_identifier_char(code[p - 1])) &&
                       (p + function.size() >= code.size() || !is_identifier_char(code[p + function.size()]));
    std::size_t q = code.find_first_not_of(" \t\n", p + function.size());
    if (!whole || q == std::string::npos || code[q] != '(') continue;
    int depth = 0;
    for (; q < code.size(); ++q) {
      if (code[q] == '(') ++depth;
      if (code[q] == ')' && --depth == 0) break;
    }
    std::size_t brace = code.find_first_not_of(" \t\n", q + 1);
    if (brace == std::string::npos || code[brace] != '{') continue;
    depth = 0;
    for (std::size_t e = brace; e < code.size(); ++e) {
      if (code[e] == '{') ++depth;
      if (code[e] == '}' && --depth == 0) {
        *open = brace;
        *close = e;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> kernels_launched_in(const std::string& text, const std::string& function) {
  const std::string code = code_only(text);
  std::size_t open = 0, close = 0;
  std::vector<std::string> out;
  if (!body_of(code, function, &open, &close)) return out;
  for (const LaunchSpans& l : launch_arg_spans(code)) {
    if (l.at < open || l.at > close) continue;
    const std::string name = launched_kernel(code, l.at);
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace kernelblaster::harness
