#include "tuner/discovery.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/source_lines.h"
#include "tuner/candidate_source.h"
#include "tuner/header_defines.h"
#include "tuner/launch_reading.h"
#include "common/source_text.h"

namespace kernelblaster::tuner {
namespace {

struct GuardedMacro {
  std::string name;
  long long value = 0;
  int line = 0;
};






// `#ifndef NAME` whose next directive is `#define NAME <positive integer>`.
std::vector<GuardedMacro> guarded_integer_macros(const std::vector<std::string>& lines) {
  std::vector<GuardedMacro> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto [directive, rest] = preprocessor_line(lines[i]);
    if (directive != "ifndef") continue;
    std::string name = strip_comment(rest);
    if (!is_identifier(name)) continue;
    for (std::size_t j = i + 1; j < lines.size(); ++j) {
      std::string t = strip_comment(lines[j]);
      if (t.empty()) continue;
      auto [d, body] = preprocessor_line(t);
      if (d != "define") break;
      std::size_t sp = body.find_first_of(" \t");
      if (sp == std::string::npos || body.substr(0, sp) != name) break;
      long long v = integer_literal(body.substr(sp));
      if (v > 0) out.push_back({name, v, static_cast<int>(j + 1)});
      break;
    }
  }
  return out;
}



struct Launch {
  std::vector<std::string> args;  // grid, block, shared bytes, stream
};

std::vector<Launch> find_launches(const std::string& code) {
  std::vector<Launch> out;
  for (std::size_t p = code.find("<<<"); p != std::string::npos; p = code.find("<<<", p + 3)) {
    std::size_t e = code.find(">>>", p + 3);
    if (e == std::string::npos) break;
    out.push_back({split_top(code.substr(p + 3, e - p - 3), ',')});
  }
  return out;
}

// What a local name stands for: `dim3 v(a, b)`, `dim3 v{a, b}`, `T v = e;`,
// `v = e;` and `v.x = e;` anywhere in the code (every one of them: the
// scan does not know scopes). A dim3 constructor comes back as "dim3(a, b)".
std::vector<std::string> definitions_of(const std::string& code, const std::string& name) {
  static const std::set<std::string> kTypes = {"dim3", "int", "unsigned", "size_t", "int64_t", "int32_t",
                                               "uint32_t", "uint64_t", "long", "auto", "const", "constexpr"};
  std::vector<std::string> out;
  for (std::size_t p : word_positions(code, name)) {
    std::size_t after = p + name.size();
    while (after < code.size() && (code[after] == ' ' || code[after] == '\t')) ++after;
    if (after >= code.size()) continue;
    // The word before the name.
    std::size_t b = p;
    while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t' || code[b - 1] == '\n')) --b;
    std::size_t a = b;
    while (a > 0 && (is_identifier_char(code[a - 1]) || code[a - 1] == ':')) --a;
    std::string before = code.substr(a, b - a);
    if (std::size_t colons = before.rfind("::"); colons != std::string::npos) before = before.substr(colons + 2);
    bool typed = kTypes.count(before) > 0;
    char c = code[after];
    if (typed && (c == '(' || c == '{')) {
      std::size_t close = matching(code, after, c, c == '(' ? ')' : '}');
      if (close != std::string::npos) out.push_back("dim3(" + code.substr(after + 1, close - after - 1) + ")");
      continue;
    }
    std::size_t eq = after;
    if (c == '.' && after + 2 < code.size()) {  // v.x = e
      eq = after + 2;
      while (eq < code.size() && (code[eq] == ' ' || code[eq] == '\t')) ++eq;
    }
    if (eq < code.size() && code[eq] == '=' && (eq + 1 >= code.size() || code[eq + 1] != '=')) {
      std::size_t semi = code.find(';', eq);
      if (semi != std::string::npos) out.push_back(trim(code.substr(eq + 1, semi - eq - 1)));
    }
  }
  return out;
}

// `arg` and, up to three names deep, what the names in it stand for.
std::string expanded(const std::string& code, const std::string& arg, int depth = 3) {
  std::string all = arg;
  if (depth == 0) return all;
  std::set<std::string> seen;
  for (const std::string& id : identifiers(arg))
    if (seen.insert(id).second)
      for (const std::string& d : definitions_of(code, id)) all += " ; " + expanded(code, d, depth - 1);
  return all;
}

// The dimensions of a block argument: "dim3(a, b)" → {a, b}; a name with one
// definition → that definition's dimensions; anything else → {arg}.
std::vector<std::string> block_dims(const std::string& code, const std::string& arg, int depth = 3) {
  std::string a = trim(arg);
  if (a.rfind("dim3", 0) == 0) {
    std::size_t open = a.find_first_of("({");
    if (open != std::string::npos) {
      std::size_t close = matching(a, open, a[open], a[open] == '(' ? ')' : '}');
      if (close != std::string::npos) {
        std::vector<std::string> dims = split_top(a.substr(open + 1, close - open - 1), ',');
        std::vector<std::string> out;
        for (const std::string& d : dims) {
          std::vector<std::string> sub = depth > 0 ? block_dims(code, d, depth - 1) : std::vector<std::string>{d};
          out.push_back(sub.size() == 1 ? sub[0] : d);
        }
        return out;
      }
    }
  }
  if (is_identifier(a) && depth > 0) {
    std::vector<std::string> defs = definitions_of(code, a);
    if (defs.size() == 1) return block_dims(code, defs[0], depth - 1);
  }
  return {a};
}

// Conditions of every `for` loop.
std::vector<std::string> loop_conditions(const std::string& code) {
  std::vector<std::string> out;
  for (std::size_t p : word_positions(code, "for")) {
    std::size_t open = code.find_first_not_of(" \t\n", p + 3);
    if (open == std::string::npos || code[open] != '(') continue;
    std::size_t close = matching(code, open, '(', ')');
    if (close == std::string::npos) continue;
    std::vector<std::string> parts = split_top(code.substr(open + 1, close - open - 1), ';');
    if (parts.size() == 3) out.push_back(parts[1]);
  }
  return out;
}

// Arguments of every `__launch_bounds__(...)`.
std::vector<std::string> launch_bounds(const std::string& code) {
  std::vector<std::string> out;
  for (std::size_t p : word_positions(code, "__launch_bounds__")) {
    std::size_t open = code.find('(', p);
    std::size_t close = open == std::string::npos ? open : matching(code, open, '(', ')');
    if (close != std::string::npos) out.push_back(code.substr(open + 1, close - open - 1));
  }
  return out;
}

std::vector<std::string> values_list(std::set<long long> v, long long dflt) {
  v.insert(dflt);
  std::vector<std::string> out;
  out.push_back(std::to_string(dflt));  // the default first, as directives order them
  for (long long x : v)
    if (x != dflt) out.push_back(std::to_string(x));
  return out;
}

std::string range_phrase(const std::vector<std::string>& values) {
  long long lo = std::stoll(values[0]), hi = lo;
  for (const std::string& v : values) {
    lo = std::min(lo, std::stoll(v));
    hi = std::max(hi, std::stoll(v));
  }
  return std::to_string(lo) + ".." + std::to_string(hi);
}

bool only_arithmetic(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return is_identifier_char(static_cast<char>(c)) || std::strchr(" \t\n+-*/%()", c) != nullptr;
  });
}

// The code without comments, literals or preprocessor lines, and what the
// `#pragma unroll` lines it had say.
struct CodeView {
  std::string code;
  std::vector<std::string> pragma_unrolls;
};

CodeView code_view(const std::string& text) {
  CodeView view;
  std::vector<std::string> code_lines = lines_of(code_only(text));
  for (std::string& l : code_lines) {
    auto [directive, rest] = preprocessor_line(l);
    if (directive == "pragma" && rest.rfind("unroll", 0) == 0) view.pragma_unrolls.push_back(rest.substr(6));
    if (!trim(l).empty() && trim(l)[0] == '#') l.clear();
  }
  for (const std::string& l : code_lines) view.code += l + "\n";
  return view;
}

// Where a macro may play a part: the launches' block sizes (and launch
// bounds), their other shapes, the loops' conditions, the unroll counts;
// and which names shape a block of more than one dimension.
struct MacroRoles {
  std::string block_text, shape_text, loop_text, unroll_text;
  std::set<std::string> multi_dim;
};

MacroRoles macro_roles(const CodeView& view, const std::vector<Launch>& launches) {
  const std::string& code = view.code;
  MacroRoles r;
  for (const Launch& l : launches)
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      if (i == 3) continue;  // the stream
      (i == 1 ? r.block_text : r.shape_text) += expanded(code, l.args[i]) + "\n";
    }
  for (const std::string& b : launch_bounds(code)) r.block_text += split_top(b, ',')[0] + "\n";
  for (const std::string& c : loop_conditions(code)) r.loop_text += expanded(code, c, 1) + "\n";
  for (const std::string& u : view.pragma_unrolls) r.unroll_text += u + "\n";
  for (const Launch& l : launches) {
    if (l.args.size() < 2) continue;
    std::vector<std::string> dims = block_dims(code, l.args[1]);
    int real = 0;
    for (const std::string& d : dims) real += integer_literal(d) != 1;
    if (real < 2) continue;
    for (const std::string& d : dims)
      for (const std::string& id : identifiers(expanded(code, d))) r.multi_dim.insert(id);
  }
  return r;
}

// The tunable a guarded macro makes, by the part it plays (`role`), or none
// where it plays none or has fewer than two values.
std::optional<Tunable> tunable_for(const GuardedMacro& m, const MacroRoles& r, std::string* role) {
  Tunable t;
  t.name = m.name;
  t.default_value = std::to_string(m.value);
  if (mentions(r.block_text, m.name)) {
    if (r.multi_dim.count(m.name)) {
      t.values = values_list({4, 8, 16, 32}, m.value);
      *role = "block dimension";
    } else {
      t.values = values_list({32, 64, 128, 256, 512, 1024}, m.value);
      *role = "block size";
    }
    t.technique = "block_size_adaptation";
    return t;
  }
  if (!mentions(r.shape_text, m.name) && !mentions(r.loop_text, m.name) && !mentions(r.unroll_text, m.name))
    return std::nullopt;
  std::set<long long> v;
  for (long long quarters : {1LL, 2LL, 4LL, 8LL, 16LL}) {  // a quarter to four times the default
    long long x = m.value * quarters / 4;
    if ((m.value * quarters) % 4 == 0 && x >= 1 && x <= 65536) v.insert(x);
  }
  t.values = values_list(v, m.value);
  if (t.values.size() < 2) return std::nullopt;
  *role = mentions(r.shape_text, m.name) ? "launch shape" : "loop trip count";
  t.technique = mentions(r.unroll_text, m.name) ? "loop_unrolling" : infer_technique(m.name);
  return t;
}

// The hardware's limit on each block that discovered macros shape, when
// the block is made of tunables and literals only.
std::vector<Constraint> block_limits(const std::string& code, const std::vector<Launch>& launches,
                                     const SpaceDecl& declared, const std::vector<Tunable>& discovered_tunables) {
  std::map<std::string, long long> defaults;
  for (const Tunable& t : declared.tunables) {
    long long v = integer_literal(t.default_value);
    if (v > 0) defaults[t.name] = v;
  }
  std::set<std::string> discovered;
  for (const Tunable& t : discovered_tunables) {
    defaults[t.name] = std::stoll(t.default_value);
    discovered.insert(t.name);
  }
  std::vector<Constraint> out;
  std::set<std::string> seen;
  for (const Launch& l : launches) {
    if (l.args.size() < 2) continue;
    std::string product;
    bool usable = true, ours = false;
    for (const std::string& d : block_dims(code, l.args[1])) {
      for (const std::string& id : identifiers(d)) {
        if (!defaults.count(id)) usable = false;
        if (discovered.count(id)) ours = true;
      }
      if (!only_arithmetic(d)) usable = false;
      product += (product.empty() ? "" : " * ") + std::string("(") + d + ")";
    }
    if (!usable || !ours) continue;
    if (product.find('*') == std::string::npos && is_identifier(trim(product.substr(1, product.size() - 2))))
      continue;  // a bare tunable: its values already respect the limit
    std::string text_c = product + " <= " + std::to_string(kMaxThreadsPerBlock);
    if (!seen.insert(text_c).second) continue;
    try {
      Constraint c(text_c);
      if (c.holds(defaults)) out.push_back(std::move(c));
    } catch (const ConstraintError&) {
      // A product the constraint language cannot state limits nothing: the tuner's other checks stand.
    }
  }
  return out;
}

}  // namespace

Discovery discover_tunables(const std::string& text, const std::string& file, const SpaceDecl& declared,
                            const std::vector<std::string>& include_dirs) {
  Discovery found;
  const CodeView view = code_view(text);
  const std::vector<Launch> launches = find_launches(view.code);
  const MacroRoles roles = macro_roles(view, launches);
  std::set<std::string> taken;
  for (const Tunable& t : declared.tunables) taken.insert(t.name);
  const auto take = [&](const std::string& where, const std::string& lines) {
    for (const GuardedMacro& m : guarded_integer_macros(lines_of(lines))) {
      if (taken.count(m.name) || names_the_warp_size(m.name, m.value)) continue;
      std::string role;
      std::optional<Tunable> t = tunable_for(m, roles, &role);
      if (!t) continue;
      t->origin = where + ":" + std::to_string(m.line) + " (discovered: " + role + ")";
      found.summary.push_back(t->name + " (" + role + ": " + range_phrase(t->values) + ")");
      taken.insert(t->name);
      found.tunables.push_back(std::move(*t));
    }
  };
  take(file, text);
  std::vector<std::string> unread;  // tune --list names what could not be read (launch_tunables.h)
  for (const ProjectHeader& h : project_headers(text, file, include_dirs, &unread)) take(h.path, h.text);
  found.constraints = block_limits(view.code, launches, declared, found.tunables);
  return found;
}

Discovery add_discovered_space(SpaceDecl& decl, const std::string& text, const std::string& file,
                               const std::vector<std::string>& include_dirs) {
  if (!decl.discover) return {};
  Discovery found = discover_tunables(text, file, decl, include_dirs);
  decl.tunables.insert(decl.tunables.end(), found.tunables.begin(), found.tunables.end());
  decl.constraints.insert(decl.constraints.end(), found.constraints.begin(), found.constraints.end());
  return found;
}

}  // namespace kernelblaster::tuner

namespace kernelblaster::tuner {
namespace {


// Whole-number tokens equal to `value` inside [span): their spans.
std::vector<Span> number_tokens(const std::string& code, Span span, long long value) {
  std::vector<Span> out;
  for (std::size_t i = span.begin; i < span.end;) {
    if (std::isdigit(static_cast<unsigned char>(code[i])) && (i == 0 || !is_identifier_char(code[i - 1]))) {
      std::size_t j = i;
      while (j < span.end && is_identifier_char(code[j])) ++j;
      if (integer_literal(code.substr(i, j - i)) == value) out.push_back({i, j});
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

// The span of `name = <integer>;` when it is the name's only assignment.
bool sole_literal_definition(const std::string& code, const std::string& name, Span* literal, long long* value) {
  int found = 0;
  for (std::size_t p : word_positions(code, name)) {
    std::size_t q = p + name.size();
    while (q < code.size() && (code[q] == ' ' || code[q] == '\t')) ++q;
    if (q >= code.size() || code[q] != '=' || (q + 1 < code.size() && code[q + 1] == '=')) continue;
    std::size_t semi = code.find(';', q);
    if (semi == std::string::npos) return false;
    std::size_t b = q + 1, e = semi;
    while (b < e && std::isspace(static_cast<unsigned char>(code[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
    *value = integer_literal(code.substr(b, e - b));
    *literal = {b, e};
    ++found;
  }
  return found == 1 && *value > 0;
}

// Where the source gives `name` its value, when it does so once: the span of
// e in `T name = e;` or `name = e;`, or of the first component (the x
// dimension) in `dim3 name(e, ...)` or `dim3 name{e, ...}`. A name also
// assigned elsewhere (`name.x = ...`, `name += ...`) has no sole initializer.
bool sole_initializer(const std::string& code, const std::string& name, Span* expr) {
  int found = 0;
  for (std::size_t p : word_positions(code, name)) {
    std::size_t q = p + name.size();
    while (q < code.size() && (code[q] == ' ' || code[q] == '\t')) ++q;
    if (q >= code.size()) continue;
    const char c = code[q];
    if (c == '(' || c == '{') {
      std::size_t b = p;  // a declaration has a type before the name
      while (b > 0 && std::isspace(static_cast<unsigned char>(code[b - 1]))) --b;
      if (b == 0 || !is_identifier_char(code[b - 1])) continue;  // a call, not a declaration
      std::size_t close = matching(code, q, c, c == '(' ? ')' : '}');
      if (close == std::string::npos) return false;
      std::size_t e = q + 1;
      for (int depth = 0; e < close; ++e) {  // the first component ends at a top-level comma
        if (code[e] == '(' || code[e] == '[' || code[e] == '{') ++depth;
        if (code[e] == ')' || code[e] == ']' || code[e] == '}') --depth;
        if (code[e] == ',' && depth == 0) break;
      }
      *expr = {q + 1, e};
      ++found;
    } else if (c == '=' && !(q + 1 < code.size() && code[q + 1] == '=')) {
      std::size_t semi = code.find(';', q);
      if (semi == std::string::npos) return false;
      *expr = {q + 1, semi};
      ++found;
    } else if (c == '.' || ((c == '+' || c == '-' || c == '*' || c == '/' || c == '<' || c == '>' || c == '|' ||
                             c == '&') && q + 1 < code.size() && code[q + 1] == '=')) {
      return false;  // changed after it was set
    }
  }
  return found == 1;
}


// The body of `__global__ ... name(...) { ... }`, inside its braces.
bool kernel_body(const std::string& code, const std::string& name, Span* body) {
  if (name.empty()) return false;
  for (std::size_t p : word_positions(code, name)) {
    std::size_t g = code.rfind("__global__", p);
    std::size_t semi = code.rfind(';', p), close = code.rfind('}', p);
    if (g == std::string::npos || (semi != std::string::npos && semi > g) || (close != std::string::npos && close > g))
      continue;
    std::size_t open = code.find('(', p + name.size());
    if (open == std::string::npos) continue;
    std::size_t params_end = matching(code, open, '(', ')');
    if (params_end == std::string::npos) continue;
    std::size_t brace = code.find('{', params_end);
    if (brace == std::string::npos || code.find(';', params_end) < brace) continue;  // a declaration
    std::size_t end = matching(code, brace, '{', '}');
    if (end == std::string::npos) return false;
    *body = {brace + 1, end};
    return true;
  }
  return false;
}

// Whether the number at `s` multiplies a blockIdx component (`blockIdx.x *
// 256`, `256 * blockIdx.y`): the block size written out in the kernel.
bool multiplies_block_index(const std::string& code, Span s) {
  std::size_t l = s.begin;
  while (l > 0 && std::isspace(static_cast<unsigned char>(code[l - 1]))) --l;
  if (l > 0 && code[l - 1] == '*') {
    std::size_t k = l - 1;
    while (k > 0 && std::isspace(static_cast<unsigned char>(code[k - 1]))) --k;
    if (k >= 10 && code.compare(k - 10, 9, "blockIdx.") == 0) return true;
  }
  std::size_t r = s.end;
  while (r < code.size() && std::isspace(static_cast<unsigned char>(code[r]))) ++r;
  if (r < code.size() && code[r] == '*') {
    ++r;
    while (r < code.size() && std::isspace(static_cast<unsigned char>(code[r]))) ++r;
    if (code.compare(r, 9, "blockIdx.") == 0) return true;
  }
  return false;
}



// Literals that size shared memory or launch bounds tie the kernel to them.
std::string tied_literals(const std::string& code) {
  std::string tied;
  for (std::size_t p : word_positions(code, "__shared__")) tied += code.substr(p, code.find(';', p) - p) + "\n";
  return tied;
}

// One literal block size and everything that must change with it: the
// grids of the launches it sizes (spelled out in the launch, or where the
// grid variable is set) and the kernels' own `blockIdx.x * 256`. A
// literal whose links cannot all be read is not offered: a smaller block
// under the same grid would leave the output part unwritten.
struct Link {
  Span span;
  bool minus_one = false;  // `value - 1`, as in (n + 255) / 256
  long long factor = 1;    // a multiple of the block the grid divides by: `n / 512` with a block of 256
};
struct LiteralGroup {
  long long value = 0;
  std::vector<Link> links;
  bool readable = true;
  long long bound = 0;  // the launched kernel's __launch_bounds__ (0: none): no block above it
};

// Whether the literal at `s` is a divisor (`... / 512`), or `512 - 1` of
// a rounding up (`(n + 511) / 512`).
bool divides(const std::string& code, Span s, bool minus_one) {
  std::size_t b = s.begin;
  while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t')) --b;
  return b > 0 && code[b - 1] == (minus_one ? '+' : '/');
}

void add_tokens(const std::string& code, LiteralGroup& g, Span where, bool with_minus_one) {
  for (const Span& s : number_tokens(code, where, g.value)) g.links.push_back({s, false});
  if (with_minus_one)
    for (const Span& s : number_tokens(code, where, g.value - 1)) g.links.push_back({s, true});
  if (!with_minus_one) return;  // the grid's alone: a block's multiple there sizes the grid with it
  for (long long factor : {2LL, 4LL, 8LL}) {
    for (const Span& s : number_tokens(code, where, g.value * factor))
      if (divides(code, s, false)) g.links.push_back({s, false, factor});
    for (const Span& s : number_tokens(code, where, g.value * factor - 1))
      if (divides(code, s, true)) g.links.push_back({s, true, factor});
  }
}

// The grid: spelled out in the launch, or where its variable is set, and
// one level further, where the names in that expression are set. False
// when the grid's size is not said in this file (the launch is read no
// further).
bool link_grid(const std::string& code, Span grid_span, const std::string& block_arg, LiteralGroup& g) {
  const std::string grid = code.substr(grid_span.begin, grid_span.end - grid_span.begin);
  Span grid_expr = grid_span;
  if (is_identifier(grid) && !sole_initializer(code, grid, &grid_expr)) {
    g.readable = false;  // a grid whose size this file does not say (a parameter, set in several places)
    return false;
  }
  add_tokens(code, g, grid_expr, true);
  for (const std::string& id : identifiers(code.substr(grid_expr.begin, grid_expr.end - grid_expr.begin))) {
    if (id == grid || id == block_arg) continue;
    Span init{};
    if (sole_initializer(code, id, &init)) {
      add_tokens(code, g, init, true);
    } else {
      for (const std::string& d : definitions_of(code, id))
        if (mentions(d, std::to_string(g.value)) || mentions(d, std::to_string(g.value - 1))) g.readable = false;
    }
  }
  return true;
}

// The kernel: the literal may appear there only as the block size.
void link_kernel(const std::string& code, std::size_t launch_at, LiteralGroup& g) {
  Span body{};
  if (!kernel_body(code, launched_kernel(code, launch_at), &body)) return;
  if (!number_tokens(code, body, g.value - 1).empty()) g.readable = false;
  for (const Span& s : number_tokens(code, body, g.value)) {
    if (multiplies_block_index(code, s)) g.links.push_back({s, false});
    else g.readable = false;
  }
}

// A launch whose block size is a literal (in the launch, or the sole
// definition of the name it uses) joins that literal's group.
void read_launch(const std::string& code, const std::string& tied, const LaunchSpans& launch,
                 const std::vector<std::string>& headers, const std::map<std::string, std::string>& known,
                 std::map<std::size_t, LiteralGroup>* groups) {
  const std::vector<Span>& args = launch.args;
  if (args.size() < 2) return;
  const Span block = args[1];
  const std::string arg = code.substr(block.begin, block.end - block.begin);
  Span literal{};
  long long value = integer_literal(arg);
  if (value > 0) literal = block;
  else if (!is_identifier(arg) || !sole_literal_definition(code, arg, &literal, &value)) return;
  if (value < 32 || value > kMaxThreadsPerBlock || value % 32 != 0) return;
  if (!number_tokens(tied, {0, tied.size()}, value).empty()) return;
  LiteralGroup& g = (*groups)[literal.begin];
  g.value = value;
  std::vector<const std::string*> texts = {&code};
  for (const std::string& h : headers) texts.push_back(&h);
  const long long bound = reading::launch_bound(texts, launched_kernel(code, launch.at), known);
  if (bound > 0 && (g.bound == 0 || bound < g.bound)) g.bound = bound;
  if (bound > 0 && value > bound) g.readable = false;  // the original over its own bound: not ours to read
  if (link_grid(code, args[0], arg, g)) link_kernel(code, launch.at, g);
}

// Where a literal of the copy was written: "L33" for line 33 of the source,
// "sort_common_h_L12" for a project header flattened into the copy
// (header_defines.h), and "file:line" for a tunable's origin.
struct WrittenAt {
  std::string tag, origin;
};
WrittenAt written_at(const std::string& text, std::size_t at, const std::string& file) {
  std::string in;
  const int line = line_as_written(text, at, &in);
  const std::string source = std::filesystem::absolute(file).lexically_normal().string();
  if (in.empty() || in == source || in == file) return {"L" + std::to_string(line), file + ":" + std::to_string(line)};
  std::string stem = std::filesystem::path(in).filename().string();
  for (char& c : stem)
    if (!is_identifier_char(c)) c = '_';
  return {stem + "_L" + std::to_string(line), in + ":" + std::to_string(line)};
}

// A launch whose grid is an integer literal (`<<<128, 256>>>`, a grid-stride
// kernel's block count): the literal becomes a tunable, a quarter to four
// times it. One that sizes __shared__ memory too is left alone.
void literal_grids(const std::string& code, const std::string& text, const std::string& file, const std::string& tied,
                   std::set<std::string>& names, std::vector<Edit>& edits, PreparedSource& out) {
  for (const LaunchSpans& launch : launch_arg_spans(code)) {
    if (launch.args.size() < 2) continue;
    const Span grid = launch.args[0];
    const long long value = integer_literal(code.substr(grid.begin, grid.end - grid.begin));
    if (value < 2 || !number_tokens(tied, {0, tied.size()}, value).empty()) continue;
    const WrittenAt where = written_at(text, grid.begin, file);
    const std::string name = "KERNELBLASTER_GRID_" + where.tag;
    if (!names.insert(name).second) continue;
    Span literal = grid;
    while (literal.begin < literal.end && !std::isdigit(static_cast<unsigned char>(code[literal.begin]))) ++literal.begin;
    while (literal.end > literal.begin && !is_identifier_char(code[literal.end - 1])) --literal.end;
    edits.push_back({literal, name});
    std::set<long long> counts;
    for (long long quarters : {1LL, 2LL, 4LL, 8LL, 16LL})
      if ((value * quarters) % 4 == 0 && value * quarters / 4 >= 1) counts.insert(value * quarters / 4);
    Tunable t;
    t.name = name;
    t.default_value = std::to_string(value);
    t.values = values_list(counts, value);
    t.technique = "grid_size_adaptation";
    t.origin = where.origin + " (discovered: literal grid size)";
    out.summary.push_back(name + " (literal grid size " + std::to_string(value) + ": " + range_phrase(t.values) + ")");
    out.tunables.push_back(std::move(t));
  }
}

// The literal at `at` and its links, each to become `name`.
void add_edits(const std::string& code, std::size_t at, const LiteralGroup& g, const std::string& name,
               std::vector<Edit>* edits) {
  Span literal{at, at};
  while (literal.end < code.size() && is_identifier_char(code[literal.end])) ++literal.end;
  edits->push_back({literal, name});
  std::set<std::size_t> linked;  // a launch's grid may be read twice (two launches, one variable)
  for (const Link& l : g.links) {
    if (l.span.begin == at || !linked.insert(l.span.begin).second) continue;
    const std::string times = l.factor > 1 ? std::to_string(l.factor) + " * " + name : name;
    edits->push_back({l.span, l.minus_one || l.factor > 1 ? "(" + times + (l.minus_one ? " - 1)" : ")") : name});
  }
}

// The text with the edits made, the tunables' defaults defined above it,
// and a #line back to the user's file.
std::string rewritten(const std::string& text, const std::string& file, std::vector<Edit> edits,
                      const std::vector<Tunable>& tunables) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.span.begin > b.span.begin; });
  std::string body = text;
  for (const Edit& e : edits) body.replace(e.span.begin, e.span.end - e.span.begin, e.with);
  std::string head;
  for (const Tunable& t : tunables)
    head += "#ifndef " + t.name + "\n#define " + t.name + " " + t.default_value + "\n#endif\n";
  return head + line_directive(file) + body;  // as candidate_source spells it: the tuned text names one path
}

}  // namespace

PreparedSource prepare_literal_blocks(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                      const std::vector<std::string>& include_dirs) {
  PreparedSource out;
  out.text = text;
  if (!declared.discover) return out;
  const std::string code = without_preprocessor_lines(code_only(text));
  const std::string tied = tied_literals(code);
  std::vector<std::string> headers;
  std::map<std::string, std::string> known;  // what a __launch_bounds__ may name
  reading::add_known_constants(text, &known);
  for (const std::string& h : reading::included_texts(text, std::filesystem::path(file).parent_path(), include_dirs)) {
    reading::add_known_constants(h, &known);
    headers.push_back(without_preprocessor_lines(code_only(h)));
  }
  std::map<std::size_t, LiteralGroup> groups;  // by the literal's position
  for (const LaunchSpans& launch : launch_arg_spans(code)) read_launch(code, tied, launch, headers, known, &groups);
  std::vector<Edit> edits;
  std::set<std::string> names;
  for (const Tunable& t : declared.tunables) names.insert(t.name);
  for (const auto& [at, g] : groups) {
    if (!g.readable) continue;
    const WrittenAt where = written_at(text, at, file);
    const std::string name = "KERNELBLASTER_BLOCK_" + where.tag;
    if (!names.insert(name).second) continue;
    add_edits(code, at, g, name, &edits);
    Tunable t;
    t.name = name;
    t.default_value = std::to_string(g.value);
    std::set<long long> sizes;
    for (long long v : {32, 64, 128, 256, 512, 1024})
      if (g.bound == 0 || v <= g.bound) sizes.insert(v);
    t.values = values_list(sizes, g.value);
    t.technique = "block_size_adaptation";
    t.origin = where.origin + " (discovered: literal block size)";
    out.summary.push_back(name + " (literal block size " + std::to_string(g.value) + ": 32.." +
                          std::to_string(g.bound > 0 ? g.bound : kMaxThreadsPerBlock) +
                          (g.bound > 0 ? ", its kernel's __launch_bounds__" : "") + ")");
    out.tunables.push_back(std::move(t));
  }
  literal_grids(code, text, file, tied, names, edits, out);
  if (!edits.empty()) out.text = rewritten(text, file, edits, out.tunables);
  return out;
}

}  // namespace kernelblaster::tuner
