#include "kernelbench/prototype.h"

#include <algorithm>
#include <set>

#include "common/source_lines.h"
#include "kernelbench/source_scan.h"

namespace kernelblaster::kernelbench {
namespace {

const std::set<std::string> kBuiltinTypeWords = {
    "void",     "bool",     "char",     "short",    "int",       "long",      "float",     "double",
    "signed",   "unsigned", "int8_t",   "int16_t",  "int32_t",   "int64_t",   "uint8_t",   "uint16_t",
    "uint32_t", "uint64_t", "size_t",   "half",     "__half",    "nv_bfloat16", "__nv_bfloat16", "const",
    "volatile", "__restrict__", "restrict", "ptrdiff_t", "half2", "__half2"};

// Specifiers that may precede the return type and are not part of it.
const std::set<std::string> kSpecifiers = {"extern", "static", "inline", "__host__", "__forceinline__", "__inline__"};

std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (is_identifier_char(c)) {
      std::size_t j = i;
      while (j < text.size() && is_identifier_char(text[j])) ++j;
      tokens.push_back(text.substr(i, j - i));
      i = j;
    } else if (c == ':' && i + 1 < text.size() && text[i + 1] == ':') {
      tokens.push_back("::");
      i += 2;
    } else if (c == '"') {
      std::size_t j = text.find('"', i + 1);
      j = j == std::string::npos ? text.size() : j + 1;
      tokens.push_back(text.substr(i, j - i));
      i = j;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      tokens.push_back(std::string(1, c));
      ++i;
    } else {
      ++i;
    }
  }
  return tokens;
}

bool is_word(const std::string& t) { return !t.empty() && is_identifier_char(t[0]); }

// Joins type tokens the way people write them: "const float* __restrict__".
std::string join_type(const std::vector<std::string>& tokens) {
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    bool space = i > 0 && t != "*" && t != "&" && t != "::" && tokens[i - 1] != "::";
    if (space) out += ' ';
    out += t;
  }
  return out;
}

// Start of the declaration's specifiers: walks back from the name over
// words, '*', '&', "::" and `"C"`, stopping at punctuation or at a
// preprocessor line.
std::size_t specifiers_begin(const std::string& masked, std::size_t name_pos) {
  std::size_t begin = name_pos;
  std::size_t i = name_pos;
  while (i > 0) {
    char c = masked[i - 1];
    if (c == '\n') {
      // The line above: a preprocessor directive ends the declaration's reach.
      std::size_t line_end = i - 1;
      std::size_t line_start = line_end == 0 ? std::string::npos : masked.rfind('\n', line_end - 1);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      std::size_t first = masked.find_first_not_of(" \t", line_start);
      if (first != std::string::npos && first < line_end && masked[first] == '#') break;
      --i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      --i;
      continue;
    }
    if (is_identifier_char(c) || c == '*' || c == '&' || c == ':' || c == '"') {
      --i;
      begin = i;
      continue;
    }
    break;
  }
  return begin;
}

// Whether the text before the name looks like a return type rather than the
// left side of a call (`x = f(...)`, `return f(...)`, `obj.f(...)`).
bool looks_like_type_prefix(const std::vector<std::string>& tokens) {
  if (tokens.empty()) return false;
  const std::string& last = tokens.back();
  if (last == "return" || last == "else" || last == "do") return false;
  return is_word(last) || last == "*" || last == "&";
}

struct Candidate {
  std::size_t name_pos, open, close, after;
};

// Whether `pos` lies inside an `extern "C" { ... }` block.
bool inside_extern_c_block(const std::string& source, const std::string& masked, std::size_t pos) {
  for (std::size_t e : find_identifier(masked, "extern")) {
    if (e >= pos) break;
    std::size_t q = skip_space(masked, e + 6);
    if (q == std::string::npos || source.compare(q, 3, "\"C\"") != 0) continue;
    std::size_t open = skip_space(masked, q + 3);
    if (open == std::string::npos || masked[open] != '{') continue;
    std::size_t close = matching_close(masked, open);
    if (open < pos && (close == std::string::npos || pos < close)) return true;
  }
  return false;
}

std::vector<Candidate> scan(const std::string& masked, const std::string& name) {
  std::vector<Candidate> out;
  for (std::size_t pos : find_identifier(masked, name)) {
    std::size_t open = skip_space(masked, pos + name.size());
    if (open == std::string::npos || masked[open] != '(') continue;
    std::size_t close = matching_close(masked, open);
    if (close == std::string::npos) continue;
    std::size_t after = skip_space(masked, close + 1);
    if (after == std::string::npos) continue;
    out.push_back({pos, open, close, after});
  }
  return out;
}

bool build(const std::string& source, const std::string& masked, const Candidate& c, const std::string& name,
           Prototype* out) {
  std::size_t begin = specifiers_begin(masked, c.name_pos);
  std::vector<std::string> head = tokenize(source.substr(begin, c.name_pos - begin));
  if (!looks_like_type_prefix(head)) return false;
  std::vector<std::string> ret;
  for (const std::string& t : head)
    if (!kSpecifiers.count(t) && t != "\"C\"") ret.push_back(t);
  Prototype p;
  p.in_extern_c_block = inside_extern_c_block(source, masked, c.name_pos);
  p.c_linkage = p.in_extern_c_block || std::find(head.begin(), head.end(), "\"C\"") != head.end();
  p.return_type = join_type(ret);
  p.name = name;
  p.begin = begin;
  p.name_pos = c.name_pos;
  // Parameters are split on the masked text so commas in comments do not count.
  std::vector<std::string> pieces =
      split_outside_brackets(std::string_view(masked).substr(c.open + 1, c.close - c.open - 1), ',', "(<[", ")>]");
  if (!(pieces.size() == 1 && (collapse_space(pieces[0]).empty() || collapse_space(pieces[0]) == "void")))
    for (std::size_t i = 0; i < pieces.size(); ++i) p.params.push_back(parse_param(pieces[i], static_cast<int>(i)));
  *out = p;
  return true;
}

}  // namespace

ParamKind classify_type(const std::string& type) {
  if (type.find('*') != std::string::npos) return ParamKind::pointer;
  std::vector<std::string> words;
  for (const std::string& t : tokenize(type))
    if (t != "const" && t != "volatile" && t != "std" && t != "::") words.push_back(t);
  static const std::set<std::string> floating = {"float", "double", "half", "__half", "nv_bfloat16", "__nv_bfloat16"};
  static const std::set<std::string> integral = {"bool",    "char",    "short",   "int",      "long",     "signed",
                                                 "unsigned", "int8_t", "int16_t", "int32_t",  "int64_t",  "uint8_t",
                                                 "uint16_t", "uint32_t", "uint64_t", "size_t", "ptrdiff_t"};
  if (words.size() == 1 && floating.count(words[0])) return ParamKind::floating;
  if (!words.empty() && std::all_of(words.begin(), words.end(), [](const std::string& w) { return integral.count(w); }))
    return ParamKind::integer;
  return ParamKind::other;
}

Param parse_param(const std::string& text, int index) {
  std::vector<std::string> tokens = tokenize(text);
  // A default argument is not part of the type.
  auto eq = std::find(tokens.begin(), tokens.end(), "=");
  tokens.erase(eq, tokens.end());
  bool array = false;
  if (!tokens.empty() && tokens.back() == "]") {
    auto open = std::find(tokens.begin(), tokens.end(), "[");
    tokens.erase(open, tokens.end());
    array = true;
  }
  Param p;
  bool named = tokens.size() > 1 && is_word(tokens.back()) && !kBuiltinTypeWords.count(tokens.back()) &&
               tokens[tokens.size() - 2] != "::";
  if (named) {
    p.name = tokens.back();
    tokens.pop_back();
  } else {
    p.name = "arg" + std::to_string(index);
  }
  if (array) tokens.push_back("*");
  p.type = join_type(tokens);
  p.kind = classify_type(p.type);
  return p;
}

std::string Prototype::signature(const std::string& as_name) const {
  std::string out = return_type + " " + as_name + "(";
  for (std::size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].type + " " + params[i].name;
  return out + ")";
}

std::string Prototype::argument_list() const {
  std::string out;
  for (std::size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].name;
  return out;
}

namespace {

// The first prototype of `name` whose parameter list is followed by `next`
// (';' for a declaration, '{' for a definition) into `out`, with `end` just
// past the declaration's ';' or the definition's ')'.
bool find_prototype(const std::string& source, const std::string& name, char next, Prototype* out) {
  std::string masked = code_only(source);
  for (const Candidate& c : scan(masked, name)) {
    if (masked[c.after] != next) continue;
    if (build(source, masked, c, name, out)) {
      out->end = (next == '{' ? c.close : c.after) + 1;
      return true;
    }
  }
  return false;
}

}  // namespace

bool find_declaration(const std::string& source, const std::string& name, Prototype* out, std::string* why) {
  if (find_prototype(source, name, ';', out)) return true;
  if (why) *why = "no declaration `void " + name + "(...);` found";
  return false;
}

bool find_definition(const std::string& source, const std::string& name, Prototype* out, std::string* why) {
  if (find_prototype(source, name, '{', out)) return true;
  if (why) {
    *why = "no definition of `" + name + "(...) { ... }` found";
    std::vector<std::string> others = host_function_names(source);
    if (!others.empty()) {
      *why += " (host functions defined: ";
      for (std::size_t i = 0; i < others.size() && i < 4; ++i) *why += (i ? ", " : "") + others[i];
      *why += ")";
    }
  }
  return false;
}

std::vector<std::string> host_function_names(const std::string& source) {
  std::string masked = code_only(source);
  std::vector<std::string> names;
  int depth = 0;
  for (std::size_t i = 0; i < masked.size(); ++i) {
    char c = masked[i];
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (c != '(' || depth != 0) continue;
    std::size_t e = i;
    while (e > 0 && std::isspace(static_cast<unsigned char>(masked[e - 1]))) --e;
    std::size_t b = e;
    while (b > 0 && is_identifier_char(masked[b - 1])) --b;
    if (b == e) continue;
    std::size_t close = matching_close(masked, i);
    if (close == std::string::npos) continue;
    std::size_t after = skip_space(masked, close + 1);
    if (after == std::string::npos || masked[after] != '{') continue;
    std::size_t spec = specifiers_begin(masked, b);
    std::vector<std::string> head = tokenize(masked.substr(spec, b - spec));
    bool device_side = std::any_of(head.begin(), head.end(), [](const std::string& t) {
      return t == "__global__" || t == "__device__";
    });
    if (!head.empty() && !device_side) names.push_back(masked.substr(b, e - b));
    i = close;
  }
  return names;
}

}  // namespace kernelblaster::kernelbench
