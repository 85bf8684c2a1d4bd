#include "tuner/shape_guard.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/source_lines.h"
#include "common/source_text.h"
#include "common/text.h"
#include "tuner/harness_reading.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {
namespace {

using reading::Block;
constexpr std::size_t npos = std::string::npos;

// One launcher to guard: its block, the macros it reads, its parameters'
// names, and the condition that sends a slower shape to its copy.
struct Guarded {
  const Block* block = nullptr;
  std::vector<std::string> macros;
  std::vector<std::string> params;
  std::string condition;
};

// Whether the block holding `b`'s definition is file scope or a namespace.
bool at_namespace_scope(const std::string& code, const std::vector<Block>& blocks, const Block& b) {
  const int outer = reading::block_at(blocks, b.name_at, false);
  if (outer < 0) return true;
  const std::size_t open = blocks[static_cast<std::size_t>(outer)].span.begin;
  const std::size_t before = code.find_last_of(";{}", open == 0 ? 0 : open - 1);
  const std::size_t from = before == npos ? 0 : before + 1;
  return mentions(code.substr(from, open - from), "namespace");
}

// The parameters' names in order; "" when one cannot be forwarded by name.
std::string parameter_names(const std::string& code, const Block& b, std::vector<std::string>* names) {
  const std::string list = code.substr(b.params.begin + 1, b.params.end - b.params.begin - 1);
  for (std::string p : split_top(list, ',')) {
    if (p.empty() || p == "void") continue;
    if (p.find('(') != npos || p.find("...") != npos) return "its parameter '" + p + "' cannot be forwarded by name";
    if (const std::size_t eq = p.find('='); eq != npos) p = p.substr(0, eq);
    while (!p.empty() && (p.back() == ']' || p.back() == '[' || p.back() == ' ')) p.pop_back();
    const std::vector<std::string> words = identifiers(p);
    if (words.size() < 2) return "its parameter '" + p + "' has no name";
    names->push_back(words.back());
  }
  return "";
}

// Why `b` cannot be copied under another name; "" when it can.
std::string not_copyable(const std::string& code, const std::vector<Block>& blocks, const Block& b) {
  if (b.device) return b.name + " is a kernel or device function";
  if (mentions(b.head, "template")) return b.name + " is a template";
  if (mentions(b.head, "extern")) return b.name + " is declared extern";
  const std::size_t e = reading::skip_space_back(code, b.name_at);
  if (e >= 2 && code.compare(e - 2, 2, "::") == 0) return b.name + " is a qualified definition";
  if (!at_namespace_scope(code, blocks, b)) return b.name + " is defined inside a class";
  return "";
}

// `(M == 128 && N == 128) || ...` over the slower sizes; a size another
// size cannot be told apart from (the same values of every guarded
// parameter) is left to the winner. "" when no parameter is a size.
std::string slower_condition(const std::vector<std::string>& params, const std::vector<std::string>& dims,
                             const std::vector<HarnessSize>& sizes, const std::set<std::string>& slower,
                             std::vector<std::string>* guarded_sizes) {
  auto term = [&](const HarnessSize& s) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < params.size() && i < dims.size(); ++i) {
      auto it = dims[i].empty() ? s.dims.end() : s.dims.find(dims[i]);
      if (it != s.dims.end()) parts.push_back(params[i] + " == " + std::to_string(it->second));
    }
    return parts.empty() ? std::string() : "(" + joined(parts, " && ") + ")";
  };
  std::set<std::string> faster_terms;
  for (const HarnessSize& s : sizes)
    if (!slower.count(s.label)) faster_terms.insert(term(s));
  std::vector<std::string> terms;
  for (const HarnessSize& s : sizes) {
    const std::string t = term(s);
    if (!slower.count(s.label) || t.empty() || faster_terms.count(t)) continue;
    if (std::find(terms.begin(), terms.end(), t) == terms.end()) terms.push_back(t);
    guarded_sizes->push_back(s.label);
  }
  return joined(terms, " || ");
}

// The user's line that `pos` of the tuned text is on, by the last `#line N`
// above it; 0 when there is none.
int user_line(const std::string& text, std::size_t pos, std::string* directive_path) {
  const std::size_t line_start = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  const std::size_t d = text.rfind("#line ", line_start == npos ? 0 : line_start);
  if (d == npos || (d > 0 && text[d - 1] != '\n')) return 0;
  const std::size_t eol = text.find('\n', d);
  const std::string directive = text.substr(d + 6, eol - d - 6);
  const std::size_t space = directive.find(' ');
  *directive_path = space == npos ? "" : directive.substr(space + 1);
  const int first = std::atoi(directive.c_str());
  return first + static_cast<int>(std::count(text.begin() + static_cast<long>(eol) + 1,
                                             text.begin() + static_cast<long>(line_start == npos ? 0 : line_start) + 1,
                                             '\n'));
}

// The copy of `g`'s launcher under its as-written name with the original's
// values, inserted where its definition starts; the guard at its body's top.
void guard_one(const std::string& text, const std::string& code, const Guarded& g,
               const std::map<std::string, std::string>& originals, std::string* out) {
  const Block& b = *g.block;
  const std::size_t head_at = b.name_at - b.head.size();
  const std::size_t def_start = code.find_first_not_of(" \t\n\r", head_at);
  const std::string copy_name = b.name + kAsWrittenSuffix;
  std::string path;
  const int line = user_line(text, def_start, &path);
  const std::size_t line_start = text.rfind('\n', def_start == 0 ? 0 : def_start - 1);
  const std::string indent(def_start - (line_start == npos ? 0 : line_start + 1), ' ');
  const std::string line_again = "#line " + std::to_string(line) + " " + path + "\n";
  std::string before = "\n";
  for (const std::string& m : g.macros)
    before += "#pragma push_macro(\"" + m + "\")\n#undef " + m + "\n#define " + m + " " + originals.at(m) + "\n";
  before += line_again + indent + (mentions(b.head, "static") ? "" : "static ") +
            text.substr(def_start, b.name_at - def_start) + copy_name +
            text.substr(b.name_at + b.name.size(), b.span.end + 1 - b.name_at - b.name.size()) + "\n";
  for (const std::string& m : g.macros) before += "#pragma pop_macro(\"" + m + "\")\n";
  before += line_again + indent;
  const std::string call = " if (" + g.condition + ") return " + copy_name + "(" + joined(g.params) + ");";
  out->insert(b.span.begin + 1, call);  // the later position first
  out->insert(def_start, before);
}

}  // namespace

ShapeGuard guard_slower_shapes(const GuardRequest& req) {
  ShapeGuard out;
  if (req.slower.empty()) return out;
  const std::string code = without_preprocessor_lines(code_only(req.tuned_text));
  const std::vector<Block> blocks = reading::blocks_of(code);
  std::map<int, Guarded> launchers;  // by block index
  std::map<std::string, std::string> originals;
  for (const auto& [macro, original] : req.changed) {
    originals[macro] = original;
    for (std::size_t at : word_positions(code, macro)) {
      const int f = reading::block_at(blocks, at, true);
      if (f < 0) return {.why_not = macro + " is read outside a function"};
      Guarded& g = launchers[f];
      g.block = &blocks[static_cast<std::size_t>(f)];
      if (std::find(g.macros.begin(), g.macros.end(), macro) == g.macros.end()) g.macros.push_back(macro);
    }
  }
  if (launchers.empty()) return {.why_not = "no function reads the values the winner changes"};
  const std::vector<HarnessSize> sizes = labelled_harness_sizes(req.harness);
  const std::set<std::string> slower(req.slower.begin(), req.slower.end());
  for (auto& [index, g] : launchers) {
    const Block& b = *g.block;
    if (std::string why = not_copyable(code, blocks, b); !why.empty()) return {.why_not = why};
    if (std::string why = parameter_names(code, b, &g.params); !why.empty()) return {.why_not = b.name + ": " + why};
    if (mentions(code, b.name + kAsWrittenSuffix)) return {.why_not = b.name + kAsWrittenSuffix + " exists already"};
    std::vector<std::string> guarded_sizes;
    g.condition = slower_condition(g.params, passed_dims(req.harness, b.name), sizes, slower, &guarded_sizes);
    if (g.condition.empty())
      return {.why_not = "the harness passes " + b.name + " no size that tells the slower shapes apart"};
    for (const std::string& s : guarded_sizes)
      if (std::find(out.sizes.begin(), out.sizes.end(), s) == out.sizes.end()) out.sizes.push_back(s);
    std::string path;
    if (user_line(req.tuned_text, b.name_at, &path) <= 0) return {.why_not = "the tuned text has no #line above " + b.name};
  }
  out.text = req.tuned_text;
  for (auto it = launchers.rbegin(); it != launchers.rend(); ++it) {  // from the end: earlier offsets stay
    guard_one(req.tuned_text, code, it->second, originals, &out.text);
    out.functions.insert(out.functions.begin(), it->second.block->name);
  }
  return out;
}

}  // namespace kernelblaster::tuner
