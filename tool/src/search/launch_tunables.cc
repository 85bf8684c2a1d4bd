#include "search/launch_tunables.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/source_lines.h"
#include "search/candidate_source.h"
#include "search/config_space.h"
#include "search/discovery.h"
#include "search/source_scan.h"

namespace kernelblaster::search {
namespace {

namespace fs = std::filesystem;

// A brace block of the code: a function body (its opener follows a `)` at
// file scope), or any other block.
struct Block {
  Span span;  // from `{` to its `}`
  bool function = false;
  bool device = false;  // a __global__ or __device__ function
  std::string name;
};

// Whitespace, line breaks included, off both ends.
std::string trim_all(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::size_t skip_space_back(const std::string& code, std::size_t e) {
  while (e > 0 && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
  return e;
}

// The name before the parameter list that ends at `close` (a `)`).
std::string function_name(const std::string& code, std::size_t close, std::size_t* name_at) {
  int depth = 0;
  std::size_t p = close + 1;
  while (p > 0) {
    --p;
    if (code[p] == ')') ++depth;
    if (code[p] == '(' && --depth == 0) break;
  }
  std::size_t e = skip_space_back(code, p), b = e;
  while (b > 0 && is_identifier_char(code[b - 1])) --b;
  *name_at = b;
  return code.substr(b, e - b);
}

std::vector<Block> blocks_of(const std::string& code) {
  std::vector<Block> out;
  std::vector<std::size_t> open;  // indexes into out
  std::size_t statement_start = 0;
  int in_function = 0;
  for (std::size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '{') {
      Block b;
      b.span = {i, code.size()};
      std::size_t e = skip_space_back(code, i);
      if (in_function == 0 && e > 0 && code[e - 1] == ')') {
        std::size_t name_at = 0;
        b.name = function_name(code, e - 1, &name_at);
        std::string head = code.substr(statement_start, name_at - std::min(name_at, statement_start));
        b.function = !b.name.empty() && b.name != "if" && b.name != "for" && b.name != "while" && b.name != "switch";
        b.device = mentions(head, "__global__") || mentions(head, "__device__");
      }
      in_function += b.function;
      open.push_back(out.size());
      out.push_back(b);
      statement_start = i + 1;
    } else if (c == '}') {
      if (!open.empty()) {
        Block& b = out[open.back()];
        b.span.end = i;
        in_function -= b.function;
        open.pop_back();
      }
      statement_start = i + 1;
    } else if (c == ';') {
      statement_start = i + 1;
    }
  }
  return out;
}

// The innermost block holding `pos`, or -1 (file scope); with `functions`,
// the innermost function body.
int block_at(const std::vector<Block>& blocks, std::size_t pos, bool functions = false) {
  int best = -1;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (pos > b.span.begin && pos < b.span.end && (!functions || b.function)) {
      if (best < 0 || b.span.begin > blocks[static_cast<std::size_t>(best)].span.begin) best = static_cast<int>(i);
    }
  }
  return best;
}

// `const int NAME = <literal>;` and its kin: where the literal is.
struct Constant {
  std::string name;
  long long value = 0;
  Span literal{};
  std::size_t at = 0;  // the name's position
  Span scope{};        // where the name is visible after it
  bool device = false;
};

const std::set<std::string>& integral_words() {
  static const std::set<std::string> words = {"static",   "const",    "constexpr", "unsigned", "signed",
                                              "int",      "uint",     "long",      "short",    "size_t",
                                              "int32_t",  "uint32_t", "int64_t",   "uint64_t", "auto",
                                              "unsigned_int", "__device__", "__constant__", "inline"};
  return words;
}

// The words before position `p` back to the statement's start.
std::vector<std::string> words_before(const std::string& code, std::size_t p) {
  std::size_t b = p;
  while (b > 0 && code[b - 1] != ';' && code[b - 1] != '{' && code[b - 1] != '}' && code[b - 1] != '(' &&
         code[b - 1] != ')' && code[b - 1] != ',')
    --b;
  std::vector<std::string> words;
  std::istringstream in(code.substr(b, p - b));
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Declarations of integral constants initialised by one integer literal,
// with the block each one is visible in.
std::vector<Constant> literal_constants(const std::string& code, const std::vector<Block>& blocks) {
  std::vector<Constant> out;
  for (const char* kw : {"const", "constexpr"})
    for (std::size_t p : word_positions(code, kw)) {
      std::size_t q = p + std::string(kw).size();
      while (q < code.size() && std::isspace(static_cast<unsigned char>(code[q]))) ++q;
      // Type words, then the name, then `=`.
      std::size_t name_at = q, name_end = q;
      while (true) {
        std::size_t e = q;
        while (e < code.size() && is_identifier_char(code[e])) ++e;
        if (e == q) break;
        std::string w = code.substr(q, e - q);
        name_at = q;
        name_end = e;
        q = e;
        while (q < code.size() && std::isspace(static_cast<unsigned char>(code[q]))) ++q;
        if (!integral_words().count(w)) break;
      }
      if (q >= code.size() || code[q] != '=' || (q + 1 < code.size() && code[q + 1] == '=')) continue;
      bool integral = true;
      for (const std::string& w : words_before(code, p))
        if (!integral_words().count(w)) integral = false;
      std::string name = code.substr(name_at, name_end - name_at);
      if (!integral || integral_words().count(name) || !is_identifier(name)) continue;
      // The type: the words between the keyword and the name must all be integral.
      std::istringstream types(code.substr(p, name_at - p));
      bool typed = false;
      for (std::string w; types >> w;) {
        if (!integral_words().count(w)) integral = false;
        if (w != "const" && w != "constexpr" && w != "static") typed = true;
      }
      if (!integral || !typed) continue;
      std::size_t semi = code.find(';', q);
      if (semi == std::string::npos) continue;
      std::size_t b = q + 1, e = semi;
      while (b < e && std::isspace(static_cast<unsigned char>(code[b]))) ++b;
      while (e > b && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
      long long v = integer_literal(code.substr(b, e - b));
      if (v <= 0 || code.substr(b, e - b).find('(') != std::string::npos) continue;
      Constant c;
      c.name = name;
      c.value = v;
      c.literal = {b, e};
      c.at = name_at;
      int blk = block_at(blocks, p);
      int fn = block_at(blocks, p, true);
      const bool file_scope = blk < 0 || (fn < 0 && !blocks[static_cast<std::size_t>(blk)].function);
      c.scope = file_scope ? Span{0, code.size()} : blocks[static_cast<std::size_t>(blk)].span;
      c.device = fn >= 0 && blocks[static_cast<std::size_t>(fn)].device;
      out.push_back(c);
    }
  std::sort(out.begin(), out.end(), [](const Constant& a, const Constant& b) { return a.at < b.at; });
  return out;
}

// `#define NAME <integer>` at conditional depth 0, not already guarded.
struct PlainDefine {
  std::string name;
  long long value = 0;
  int line = 0;  // 1-based
};

std::vector<PlainDefine> plain_integer_defines(const std::vector<std::string>& lines, std::set<std::string>* guarded) {
  std::vector<PlainDefine> out;
  int depth = 0;
  std::map<std::string, int> count;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto [directive, rest] = preprocessor_line(lines[i]);
    rest = strip_comment(rest);
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      ++depth;
      if (directive == "ifndef") guarded->insert(trim_all(rest));
    }
    if (directive == "endif") depth = std::max(0, depth - 1);
    if (directive != "define" && directive != "undef") continue;
    std::size_t sp = rest.find_first_of(" \t");
    std::string name = trim_all(rest.substr(0, sp));
    ++count[name];
    if (directive != "define" || depth != 0 || sp == std::string::npos || !is_identifier(name)) continue;
    long long v = integer_literal(rest.substr(sp));
    if (v > 0) out.push_back({name, v, static_cast<int>(i + 1)});
  }
  std::vector<PlainDefine> once;
  for (const PlainDefine& d : out)
    if (count[d.name] == 1 && !guarded->count(d.name)) once.push_back(d);
  return once;
}

// The headers a source includes with quotes, found beside it or in the
// include directories, two levels deep.
std::vector<std::string> included_texts(const std::string& text, const fs::path& dir,
                                        const std::vector<std::string>& include_dirs, int depth,
                                        std::set<std::string>* seen) {
  std::vector<std::string> out;
  if (depth == 0) return out;
  for (const std::string& line : lines_of(text)) {
    auto [directive, rest] = preprocessor_line(line);
    if (directive != "include") continue;
    rest = trim_all(rest);
    if (rest.size() < 2 || rest[0] != '"') continue;
    std::string name = rest.substr(1, rest.find('"', 1) - 1);
    std::vector<fs::path> where = {dir / name};
    for (const std::string& d : include_dirs) where.push_back(fs::path(d) / name);
    for (const fs::path& p : where) {
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) continue;
      std::string key = fs::weakly_canonical(p, ec).string();
      if (!seen->insert(key).second) break;
      std::ifstream in(p, std::ios::binary);
      std::string h((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      out.push_back(h);
      for (std::string& more : included_texts(h, p.parent_path(), include_dirs, depth - 1, seen))
        out.push_back(std::move(more));
      break;
    }
  }
  return out;
}

// One launch: its site, the spans of its template arguments and
// arguments, and the text that decides its shape (the arguments and,
// three names deep, what the names in them were set to in the function).
struct LaunchRead {
  LaunchSite site;
  std::size_t at = 0;
  Span templ{0, 0};
  std::vector<Span> args;
  Span region{0, 0};  // the function body up to the launch
  std::string shape_text;
};

// `name = e;`, `T name(e, ...)`, `T name{...}` inside `region`: each e.
std::vector<std::string> settings_in(const std::string& code, Span region, const std::string& name) {
  std::vector<std::string> out;
  const std::string part = code.substr(region.begin, region.end - region.begin);
  for (std::size_t p : word_positions(part, name)) {
    std::size_t q = p + name.size();
    while (q < part.size() && (part[q] == ' ' || part[q] == '\t')) ++q;
    if (q >= part.size()) continue;
    char c = part[q];
    std::size_t b = skip_space_back(part, p);
    // A declaration has a type before the name, or follows another one (`dim3 grid(..), threads(..)`).
    bool declared = b > 0 && (is_identifier_char(part[b - 1]) || part[b - 1] == ',');
    if ((c == '(' || c == '{') && declared) {
      std::size_t close = matching(part, q, c, c == '(' ? ')' : '}');
      if (close != std::string::npos) out.push_back(part.substr(q + 1, close - q - 1));
    } else if (c == '=' && !(q + 1 < part.size() && part[q + 1] == '=')) {
      std::size_t semi = part.find(';', q);
      if (semi != std::string::npos) out.push_back(part.substr(q + 1, semi - q - 1));
    }
  }
  return out;
}

std::string shape_of(const std::string& code, Span region, const std::string& expr, int depth) {
  std::string all = expr;
  if (depth == 0) return all;
  std::set<std::string> seen;
  for (const std::string& id : identifiers(expr))
    if (seen.insert(id).second)
      for (const std::string& s : settings_in(code, region, id)) all += " ; " + shape_of(code, region, s, depth - 1);
  return all;
}

std::vector<LaunchRead> read_launches(const std::string& code, const std::string& text,
                                      const std::vector<Block>& blocks) {
  std::vector<LaunchRead> out;
  for (const LaunchSpans& l : launch_arg_spans(code)) {
    LaunchRead r;
    r.at = l.at;
    r.args = l.args;
    r.site.line = line_at(text, l.at);
    r.site.kernel = launched_kernel(code, l.at);
    std::size_t e = skip_space_back(code, l.at);
    if (e > 0 && code[e - 1] == '>') {
      int depth = 0;
      std::size_t p = e;
      while (p > 0) {
        --p;
        if (code[p] == '>') ++depth;
        if (code[p] == '<' && --depth == 0) break;
      }
      r.templ = {p + 1, e - 1};
    }
    int fn = block_at(blocks, l.at, true);
    if (fn >= 0) {
      r.site.function = blocks[static_cast<std::size_t>(fn)].name;
      r.region = {blocks[static_cast<std::size_t>(fn)].span.begin, l.at};
    } else {
      r.region = {0, l.at};
    }
    std::string direct = code.substr(r.templ.begin, r.templ.end - r.templ.begin);
    for (std::size_t i = 0; i < l.args.size() && i < 3; ++i)
      direct += " ; " + code.substr(l.args[i].begin, l.args[i].end - l.args[i].begin);
    r.shape_text = shape_of(code, r.region, direct, 3);
    out.push_back(r);
  }
  return out;
}

// The body of the kernel (or kernel template) `name` in `code`, and its
// template parameter names in order.
struct KernelText {
  std::string body;
  std::vector<std::string> params;
};

bool kernel_text(const std::string& code, const std::string& name, KernelText* out) {
  if (name.empty()) return false;
  for (std::size_t p : word_positions(code, name)) {
    std::size_t g = code.rfind("__global__", p);
    std::size_t semi = code.rfind(';', p), close = code.rfind('}', p);
    if (g == std::string::npos || (semi != std::string::npos && semi > g) ||
        (close != std::string::npos && close > g))
      continue;
    std::size_t open = code.find('(', p + name.size());
    std::size_t params_end = open == std::string::npos ? open : matching(code, open, '(', ')');
    if (params_end == std::string::npos) continue;
    std::size_t brace = code.find('{', params_end);
    if (brace == std::string::npos || code.find(';', params_end) < brace) continue;
    std::size_t end = matching(code, brace, '{', '}');
    if (end == std::string::npos) return false;
    out->body = code.substr(brace + 1, end - brace - 1);
    std::size_t t = code.rfind("template", g);
    std::size_t prev = std::max(semi == std::string::npos ? 0 : semi, close == std::string::npos ? 0 : close);
    if (t != std::string::npos && (t > prev || prev == 0)) {
      std::size_t lt = code.find('<', t);
      int depth = 0;
      std::size_t gt = lt;
      for (; gt < g; ++gt) {
        if (code[gt] == '<') ++depth;
        if (code[gt] == '>' && --depth == 0) break;
      }
      if (lt != std::string::npos && gt < g)
        for (const std::string& param : split_top(code.substr(lt + 1, gt - lt - 1), ',')) {
          std::string head = trim_all(param.substr(0, param.find('=')));
          std::vector<std::string> ids = identifiers(head);
          out->params.push_back(ids.empty() ? "" : ids.back());
        }
    }
    return true;
  }
  return false;
}

// Integer constants the constraints may read but that are not tuned: the
// headers' and the source's object-like integer #defines and file-scope
// integral constants.
void add_known_constants(const std::string& text, std::map<std::string, std::string>* known) {
  for (const std::string& line : lines_of(text)) {
    auto [directive, rest] = preprocessor_line(line);
    rest = strip_comment(rest);
    if (directive != "define") continue;
    std::size_t sp = rest.find_first_of(" \t");
    if (sp == std::string::npos) continue;
    std::string name = trim_all(rest.substr(0, sp)), body = trim_all(rest.substr(sp));
    if (!is_identifier(name) || known->count(name)) continue;
    if (integer_literal(body) >= 0) (*known)[name] = std::to_string(integer_literal(body));
    else if (!body.empty() && body.find_first_not_of("0123456789+-*/%() \tABCDEFGHIJKLMNOPQRSTUVWXYZ_") ==
                                  std::string::npos)
      (*known)[name] = "(" + body + ")";
  }
  const std::string code = without_preprocessor_lines(code_only(text));
  const std::vector<Block> blocks = blocks_of(code);
  for (const Constant& c : literal_constants(code, blocks))
    if (c.scope.begin == 0 && c.scope.end == code.size() && !known->count(c.name))
      (*known)[c.name] = std::to_string(c.value);
}

// Derived constants of a body (`constexpr uint NUM_WARPS = K10_NUM_THREADS / 32;`).
void add_derived(const std::string& body, std::map<std::string, std::string>* env) {
  for (const char* kw : {"constexpr", "const"})
    for (std::size_t p : word_positions(body, kw)) {
      std::size_t eq = body.find('=', p), semi = body.find(';', p);
      if (eq == std::string::npos || semi == std::string::npos || eq > semi) continue;
      std::vector<std::string> ids = identifiers(body.substr(p, eq - p));
      if (ids.empty() || env->count(ids.back())) continue;
      bool integral = true;
      for (std::size_t i = 0; i + 1 < ids.size(); ++i) integral = integral && integral_words().count(ids[i]) > 0;
      if (integral) (*env)[ids.back()] = "(" + trim_all(body.substr(eq + 1, semi - eq - 1)) + ")";
    }
}

// `expr` with every name replaced from `env` (five rounds deep), C's
// alternative operator words spelled as symbols and integer suffixes
// dropped; "" when a name remains that is not a tunable.
std::string folded(std::string expr, const std::map<std::string, std::string>& env,
                   const std::set<std::string>& tunables) {
  for (int round = 0; round < 6; ++round) {
    std::string out;
    bool changed = false;
    for (std::size_t i = 0; i < expr.size();) {
      if (std::isdigit(static_cast<unsigned char>(expr[i]))) {
        std::size_t j = i;
        while (j < expr.size() && std::isdigit(static_cast<unsigned char>(expr[j]))) ++j;
        out += expr.substr(i, j - i);
        while (j < expr.size() && std::strchr("uUlL", expr[j]) && expr[j] != '\0') ++j;
        i = j;
      } else if (is_identifier_char(expr[i])) {
        std::size_t j = i;
        while (j < expr.size() && is_identifier_char(expr[j])) ++j;
        std::string id = expr.substr(i, j - i);
        static const std::map<std::string, std::string> words = {{"and", "&&"}, {"or", "||"}, {"not", "!"}};
        if (auto w = words.find(id); w != words.end()) out += " " + w->second + " ";
        else if (auto e = env.find(id); e != env.end() && !tunables.count(id)) {
          out += e->second;
          changed = true;
        } else out += id;
        i = j;
      } else {
        out += expr[i++];
      }
    }
    expr = out;
    if (!changed) break;
  }
  for (const std::string& id : identifiers(expr))
    if (!tunables.count(id)) return "";
  return expr;
}

// The first argument of every `word(...)` in `body`.
std::vector<std::string> first_arguments(const std::string& body, const std::string& word) {
  std::vector<std::string> out;
  for (std::size_t p : word_positions(body, word)) {
    std::size_t open = body.find_first_not_of(" \t\n", p + word.size());
    if (open == std::string::npos || body[open] != '(') continue;
    std::size_t close = matching(body, open, '(', ')');
    if (close == std::string::npos) continue;
    std::vector<std::string> parts = split_top(body.substr(open + 1, close - open - 1), ',');
    if (!parts.empty()) out.push_back(parts[0]);
  }
  return out;
}

// Bytes of the static `__shared__` arrays of a kernel body, as an expression.
std::string shared_bytes(const std::string& body) {
  static const std::map<std::string, int> sizes = {{"float", 4}, {"int", 4},    {"unsigned", 4}, {"uint", 4},
                                                   {"double", 8}, {"half", 2},  {"__half", 2},   {"float2", 8},
                                                   {"float4", 16}, {"char", 1}, {"short", 2},    {"long", 8}};
  std::string sum;
  for (std::size_t p : word_positions(body, "__shared__")) {
    std::size_t semi = body.find(';', p);
    std::string decl = body.substr(p + 10, semi - p - 10);
    std::vector<std::string> ids = identifiers(decl.substr(0, decl.find('[')));
    std::size_t start = body.find_last_of(";{}", p);
    const bool external = mentions(body.substr(start == std::string::npos ? 0 : start, p), "extern");
    if (decl.find('[') == std::string::npos || external) continue;
    int size = 0;
    for (const std::string& w : ids)
      if (sizes.count(w)) size = sizes.at(w);
    if (size == 0) return "";  // a type this reading does not know: no limit stated
    std::string product = std::to_string(size);
    for (std::size_t b = decl.find('['); b != std::string::npos; b = decl.find('[', b + 1)) {
      std::size_t e = matching(decl, b, '[', ']');
      if (e == std::string::npos) return "";
      product += " * (" + decl.substr(b + 1, e - b - 1) + ")";
      b = e;
    }
    sum += (sum.empty() ? "" : " + ") + product;
  }
  return sum;
}

std::vector<std::string> values_around(long long dflt, bool block_size) {
  std::set<long long> v;
  if (block_size) {
    for (long long b : {32, 64, 128, 256, 512, 1024}) v.insert(b);
  } else {
    for (long long quarters : {1LL, 2LL, 4LL, 8LL, 16LL}) {
      long long x = dflt * quarters / 4;
      if ((dflt * quarters) % 4 == 0 && x >= 1 && x <= 65536) v.insert(x);
    }
  }
  v.insert(dflt);
  std::vector<std::string> out = {std::to_string(dflt)};
  for (long long x : v)
    if (x != dflt) out.push_back(std::to_string(x));
  return out;
}

std::string macro_name(const std::string& what, int line) {
  std::string n;
  for (char c : what) n += is_identifier_char(c) ? c : '_';
  return "KERNELBLASTER_" + n + "_L" + std::to_string(line);
}

// The names a launch's block is made of, when it is one dimension written
// as a bare name: what a block size is.
bool bare_block(const std::string& code, const LaunchRead& l, const std::string& name) {
  if (l.args.size() < 2) return false;
  std::string block = trim_all(code.substr(l.args[1].begin, l.args[1].end - l.args[1].begin));
  std::vector<std::string> sets = settings_in(code, l.region, block);
  if (is_identifier(block) && sets.size() == 1) block = trim_all(sets[0]);
  if (block.rfind("dim3", 0) == 0 && block.find('(') != std::string::npos)
    block = block.substr(block.find('(') + 1, block.rfind(')') - block.find('(') - 1);
  std::vector<std::string> dims = split_top(block, ',');
  return dims.size() == 1 && trim_all(dims[0]) == name;
}

// The block's dimensions, as written (through one dim3 the launch names).
std::vector<std::string> block_dimensions(const std::string& code, const LaunchRead& l) {
  if (l.args.size() < 2) return {};
  std::string block = trim_all(code.substr(l.args[1].begin, l.args[1].end - l.args[1].begin));
  std::vector<std::string> sets = settings_in(code, l.region, block);
  if (is_identifier(block) && !sets.empty()) return split_top(sets.back(), ',');
  if (block.rfind("dim3", 0) == 0 && block.find_first_of("({") != std::string::npos) {
    std::size_t o = block.find_first_of("({");
    return split_top(block.substr(o + 1, block.size() - o - 2), ',');
  }
  return {block};
}

class Finder {
 public:
  Finder(const std::string& text, const std::string& file, const SpaceDecl& declared,
         const std::vector<std::string>& include_dirs)
      : m_text(text), m_file(file), m_code(without_preprocessor_lines(code_only(text))) {
    for (const Tunable& t : declared.tunables) m_taken.insert(t.name);
    m_blocks = blocks_of(m_code);
    m_launches = read_launches(m_code, text, m_blocks);
    std::set<std::string> seen;
    m_headers = included_texts(text, fs::path(file).parent_path(), include_dirs, 3, &seen);
    for (const std::string& h : m_headers) add_known_constants(h, &m_known);
    m_header_code.reserve(m_headers.size());
    for (const std::string& h : m_headers) m_header_code.push_back(without_preprocessor_lines(code_only(h)));
  }

  LaunchTunables run() {
    find_defines();
    find_constants();
    find_template_literals();
    add_known_constants(m_text, &m_known);
    group_sites();
    for (LaunchRead& l : m_launches) derive_constraints(l);
    return finish();
  }

 private:
  struct Found {
    FoundTunable t;
    std::vector<Edit> edits;
    std::set<std::size_t> sites;
    std::string guard_text;  // for a define: what its line becomes
  };

  bool site_reads(const LaunchRead& l, const std::string& name) const {
    if (mentions(l.shape_text, name)) return true;
    KernelText k;
    return kernel_text(m_code, l.site.kernel, &k) && mentions(k.body, name);
  }

  void find_defines() {
    std::set<std::string> guarded;
    std::vector<std::string> lines = lines_of(m_text);
    for (const PlainDefine& d : plain_integer_defines(lines, &guarded)) {
      if (m_taken.count(d.name) || names_the_warp_size(d.name, d.value)) continue;
      Found f;
      for (std::size_t i = 0; i < m_launches.size(); ++i)
        if (site_reads(m_launches[i], d.name)) f.sites.insert(i);
      bool in_kernel = false;
      for (const Block& b : m_blocks)
        if (b.function && b.device && mentions(m_code.substr(b.span.begin, b.span.end - b.span.begin), d.name))
          in_kernel = true;
      if (f.sites.empty() && !in_kernel) continue;
      bool block_size = false;
      for (std::size_t s : f.sites) block_size = block_size || bare_block(m_code, m_launches[s], d.name);
      f.t.tunable.name = d.name;
      f.t.tunable.default_value = std::to_string(d.value);
      f.t.tunable.values = values_around(d.value, block_size);
      f.t.kind = "define";
      f.t.written_as = d.name;
      f.t.line = d.line;
      std::size_t begin = 0;
      for (int i = 1; i < d.line; ++i) begin = m_text.find('\n', begin) + 1;
      std::size_t end = m_text.find('\n', begin);
      if (end == std::string::npos) end = m_text.size();
      const std::string original_line = m_text.substr(begin, end - begin);
      f.edits.push_back({{begin, end},
                         "#ifndef " + d.name + "\n" + original_line + "\n#endif\n#line " + std::to_string(d.line + 1) +
                             line_directive(m_file).substr(7, std::string::npos)});
      // line_directive ends in a newline; the original line's own newline follows: drop one.
      f.edits.back().with.pop_back();
      add(std::move(f));
    }
  }

  void find_constants() {
    for (const Constant& c : literal_constants(m_code, m_blocks)) {
      if (c.device || m_taken.count(c.name) || names_the_warp_size(c.name, c.value)) continue;
      Found f;
      for (std::size_t i = 0; i < m_launches.size(); ++i) {
        const LaunchRead& l = m_launches[i];
        if (l.at > c.at && l.at < c.scope.end && l.at > c.scope.begin && mentions(l.shape_text, c.name))
          f.sites.insert(i);
      }
      if (f.sites.empty()) continue;
      bool block_size = false;
      for (std::size_t s : f.sites) block_size = block_size || bare_block(m_code, m_launches[s], c.name);
      const int line = line_at(m_text, c.at);
      f.t.tunable.name = macro_name(c.name, line);
      f.t.tunable.default_value = std::to_string(c.value);
      f.t.tunable.values = values_around(c.value, block_size);
      f.t.kind = "constant";
      f.t.written_as = c.name;
      f.t.line = line;
      f.edits.push_back({c.literal, f.t.tunable.name});
      add(std::move(f));
    }
  }

  // Integer literals among a launch's template arguments, each with the
  // equal literals of the launch's grid and block and of the same
  // instantiation named again in the function (`cudaFuncSetAttribute(k<32>, ...)`).
  void find_template_literals() {
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
      const LaunchRead& l = m_launches[i];
      if (l.templ.end <= l.templ.begin) continue;
      const std::string targs = m_code.substr(l.templ.begin, l.templ.end - l.templ.begin);
      std::vector<std::string> parts = split_top(targs, ',');
      std::set<long long> done;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        long long v = integer_literal(parts[k]);
        if (v < 2 || !done.insert(v).second) continue;
        if (dispatched(l, v)) {
          m_notes.insert(l.site.kernel + "<" + trim_all(targs) + "> at line " + std::to_string(l.site.line) + ": " +
                         std::to_string(v) + " is chosen by a run-time value (a case or == " + std::to_string(v) +
                         " around the launch): not tuned");
          continue;
        }
        Found f;
        f.sites.insert(i);
        const int line = line_at(m_text, l.at);
        f.t.tunable.name = macro_name(l.site.kernel + "_T" + std::to_string(k), line);
        f.t.tunable.default_value = std::to_string(v);
        f.t.tunable.values = values_around(v, false);
        f.t.kind = "template argument";
        f.t.written_as = l.site.kernel + "<" + trim_all(targs) + "> argument " + std::to_string(k + 1);
        f.t.line = line;
        link_literal(l, v, f.t.tunable.name, &f.edits);
        add(std::move(f));
      }
    }
  }

  // Whether the launch sits under `case V:` or a condition `... == V`: the
  // literal then names a run-time value's case (a switch over block sizes),
  // not a choice of the author's.
  bool dispatched(const LaunchRead& l, long long v) const {
    const std::string value = std::to_string(v);
    const std::string region = m_code.substr(l.region.begin, l.region.end - l.region.begin);
    const std::vector<std::size_t> cases = word_positions(region, "case");
    if (!cases.empty()) {
      std::size_t colon = region.find(':', cases.back());
      const std::string label = colon == std::string::npos ? "" : region.substr(cases.back() + 4, colon - cases.back() - 4);
      if (integer_literal(label) == v && word_positions(region.substr(colon), "break").empty()) return true;
    }
    for (const Block& b : m_blocks) {
      if (!(b.span.begin < l.at && l.at < b.span.end) || b.span.begin < l.region.begin) continue;
      std::size_t head = m_code.find_last_of(";{}", b.span.begin - 1);
      head = head == std::string::npos ? 0 : head + 1;
      std::string condition = m_code.substr(head, b.span.begin - head);
      if (trim_all(condition) == "else" && head > 0 && m_code[head - 1] == '}') {
        // The other branch of `if (x == 16) {...} else {...}`: chosen by the same run-time value.
        for (const Block& taken : m_blocks)
          if (taken.span.end == head - 1) {
            std::size_t h = m_code.find_last_of(";{}", taken.span.begin - 1);
            h = h == std::string::npos ? 0 : h + 1;
            const std::string branch = m_code.substr(h, taken.span.begin - h);
            for (std::size_t p = branch.find("=="); p != std::string::npos; p = branch.find("==", p + 2))
              if (integer_literal(branch.substr(p + 2, branch.find(')', p) - p - 2)) > 0) return true;
          }
      }
      for (std::size_t p = condition.find("=="); p != std::string::npos; p = condition.find("==", p + 2)) {
        std::size_t r = p + 2;
        while (r < condition.size() && std::isspace(static_cast<unsigned char>(condition[r]))) ++r;
        std::size_t e = r;
        while (e < condition.size() && is_identifier_char(condition[e])) ++e;
        std::size_t le = skip_space_back(condition, p), lb = le;
        while (lb > 0 && is_identifier_char(condition[lb - 1])) --lb;
        if (condition.substr(r, e - r) == value || condition.substr(lb, le - lb) == value) return true;
      }
    }
    return false;
  }

  void link_literal(const LaunchRead& l, long long v, const std::string& name, std::vector<Edit>* edits) {
    std::set<std::size_t> at;
    auto take = [&](Span s) {
      for (std::size_t i = s.begin; i < s.end;) {
        if (std::isdigit(static_cast<unsigned char>(m_code[i])) && (i == 0 || !is_identifier_char(m_code[i - 1]))) {
          std::size_t j = i;
          while (j < s.end && is_identifier_char(m_code[j])) ++j;
          if (integer_literal(m_code.substr(i, j - i)) == v && at.insert(i).second) edits->push_back({{i, j}, name});
          i = j;
        } else {
          ++i;
        }
      }
    };
    take(l.templ);
    for (std::size_t a = 0; a < l.args.size() && a < 3; ++a) take(l.args[a]);
    // The grid's and block's variables, where the function sets them; the
    // same instantiation named elsewhere in the function.
    const std::string region = m_code.substr(l.region.begin, l.region.end - l.region.begin);
    for (std::size_t a = 0; a < l.args.size() && a < 2; ++a) {
      std::string arg = trim_all(m_code.substr(l.args[a].begin, l.args[a].end - l.args[a].begin));
      if (!is_identifier(arg)) continue;
      for (std::size_t p : word_positions(region, arg)) {
        std::size_t q = l.region.begin + p + arg.size();
        while (q < m_code.size() && (m_code[q] == ' ' || m_code[q] == '\t')) ++q;
        if (q < m_code.size() && (m_code[q] == '(' || m_code[q] == '{')) {
          std::size_t close = matching(m_code, q, m_code[q], m_code[q] == '(' ? ')' : '}');
          if (close != std::string::npos) take({q + 1, close});
        }
      }
    }
    const std::string instantiation = l.site.kernel + "<";
    for (std::size_t p : word_positions(region, l.site.kernel)) {
      std::size_t q = l.region.begin + p + l.site.kernel.size();
      if (q < m_code.size() && m_code[q] == '<') {
        std::size_t e = m_code.find('>', q);
        if (e != std::string::npos && e < l.at) take({q + 1, e});
      }
    }
  }

  void add(Found f) {
    m_taken.insert(f.t.tunable.name);
    m_found.push_back(std::move(f));
  }

  // Sites that share a tunable are one group: the space changes one group
  // at a time.
  void group_sites() {
    std::vector<std::size_t> parent(m_launches.size());
    for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto root = [&](std::size_t i) {
      while (parent[i] != i) i = parent[i] = parent[parent[i]];
      return i;
    };
    for (const Found& f : m_found)
      for (std::size_t s : f.sites) parent[root(s)] = root(*f.sites.begin());
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
      const LaunchRead& first = m_launches[root(i)];
      m_launches[i].site.group = (first.site.function.empty() ? "file" : first.site.function) + ":" +
                                 std::to_string(first.site.line);
    }
    for (Found& f : m_found) f.t.tunable.group = f.sites.empty() ? "unlaunched" : m_launches[*f.sites.begin()].site.group;
    limit_groups();
    for (Found& f : m_found) {
      f.t.tunable.technique = infer_technique(f.t.written_as);
      f.t.tunable.origin = m_file + ":" + std::to_string(f.t.line) + " (discovered: " + f.t.kind + " " +
                           f.t.written_as + ")";
      for (std::size_t s : f.sites) m_launches[s].site.tunables.push_back(f.t.tunable.name);
    }
  }

  static std::size_t combinations(const std::vector<Found*>& group) {
    std::size_t n = 1;
    for (const Found* f : group) n = n > kMaxCombinations ? n : n * f->t.tunable.values.size();
    return n;
  }

  // A group whose combinations one part of the space cannot hold
  // (config_space.h) keeps the tunables its launches read themselves (grid,
  // block, template arguments, shared bytes), then only the default's
  // neighbours as values; one still too large is left as written. Said in
  // the notes either way.
  void limit_groups() {
    std::map<std::string, std::vector<Found*>> groups;
    for (Found& f : m_found) groups[f.t.tunable.group].push_back(&f);
    std::set<const Found*> dropped;
    for (auto& [group, members] : groups) {
      if (combinations(members) <= kMaxCombinations) continue;
      std::vector<Found*> direct;
      for (Found* f : members) {
        bool read_by_launch = false;
        for (std::size_t s : f->sites) read_by_launch = read_by_launch || mentions(m_launches[s].shape_text, f->t.written_as);
        if (read_by_launch) direct.push_back(f);
        else dropped.insert(f);
      }
      std::string what = std::to_string(members.size()) + " tunables of " + group;
      if (combinations(direct) > kMaxCombinations)
        for (Found* f : direct) {
          std::vector<std::string>& v = f->t.tunable.values;
          const long long d = std::stoll(f->t.tunable.default_value);
          std::vector<std::string> near = {v.front()};
          for (long long x : {d / 2, d * 2})
            if (x >= 1 && x != d && std::find(v.begin(), v.end(), std::to_string(x)) != v.end())
              near.push_back(std::to_string(x));
          v = near;
        }
      if (combinations(direct) > kMaxCombinations) {
        dropped.insert(direct.begin(), direct.end());
        m_notes.insert(what + " make more than " + std::to_string(kMaxCombinations) +
                       " combinations even narrowed: left as written");
      } else if (direct.size() < members.size()) {
        m_notes.insert(what + " make more than " + std::to_string(kMaxCombinations) + " combinations: the " +
                       std::to_string(direct.size()) + " its launches read themselves are tuned, the others left as written");
      }
    }
    std::vector<Found> kept;
    for (const Found& f : m_found)
      if (!dropped.count(&f)) kept.push_back(f);
    m_found = std::move(kept);
  }

  // The names a site's expressions may use, each to its replacement.
  std::map<std::string, std::string> environment(const LaunchRead& l, std::set<std::string>* tunables) const {
    std::map<std::string, std::string> env = m_known;
    for (const Found& f : m_found) {
      tunables->insert(f.t.tunable.name);
      if (f.t.kind == "define") env.erase(f.t.written_as);
    }
    // The constants in scope at the launch: the latest declaration of each name before it.
    for (const Found& f : m_found)
      if (f.t.kind == "constant" && f.sites.count(static_cast<std::size_t>(&l - m_launches.data())))
        env[f.t.written_as] = f.t.tunable.name;
    add_derived(m_code.substr(l.region.begin, l.region.end - l.region.begin), &env);
    return env;
  }

  void add_constraint(LaunchRead& l, const std::string& expr, const std::map<std::string, std::string>& env,
                      const std::set<std::string>& tunables, const std::string& what) {
    std::string text = folded(expr, env, tunables);
    if (text.empty() || identifiers(text).empty()) {
      if (!text.empty() || identifiers(expr).empty() || what == "block") return;
      m_notes.insert(what + " at line " + std::to_string(l.site.line) + " reads values known only when it runs: `" +
                     trim_all(expr) + "` (checked by running)");
      return;
    }
    std::string one_line;  // the code's line breaks and indentation, as one space
    for (char ch : text) {
      const bool space = std::isspace(static_cast<unsigned char>(ch)) != 0;
      if (!space) one_line += ch;
      else if (!one_line.empty() && one_line.back() != ' ') one_line += ' ';
    }
    try {
      Constraint c(trim_all(one_line));
      std::map<std::string, long long> defaults;
      for (const Found& f : m_found) defaults[f.t.tunable.name] = std::stoll(f.t.tunable.default_value);
      for (const std::string& n : c.names())
        if (!defaults.count(n)) return;
      if (!c.holds(defaults)) {
        m_notes.insert(what + " `" + trim_all(expr) + "` does not hold for the code as written; not used");
        return;
      }
      l.site.constraints.push_back(c.text());
      if (m_constraint_texts.insert(c.text()).second) m_constraints.push_back(std::move(c));
    } catch (const ConstraintError&) {
      m_notes.insert(what + " `" + trim_all(expr) + "` is not an expression the space can state");
    }
  }

  void derive_constraints(LaunchRead& l) {
    if (l.site.tunables.empty()) return;
    std::set<std::string> tunables;
    std::map<std::string, std::string> env = environment(l, &tunables);
    const std::string region = m_code.substr(l.region.begin, l.region.end - l.region.begin);
    for (const std::string& a : first_arguments(region, "static_assert")) add_constraint(l, a, env, tunables, "static_assert");
    for (const std::string& a : first_arguments(region, "assert")) add_constraint(l, a, env, tunables, "assert");
    // The block's thread limits.
    std::vector<std::string> dims = block_dimensions(m_code, l);
    std::string product;
    static const long long kLimits[] = {kMaxThreadsPerBlock, kMaxThreadsPerBlock, 64};
    for (std::size_t d = 0; d < dims.size() && d < 3; ++d) {
      product += (product.empty() ? "(" : " * (") + dims[d] + ")";
      if (dims.size() > 1 && !is_identifier(trim_all(dims[d])))  // a bare name's values keep the limit
        add_constraint(l, "(" + dims[d] + ") <= " + std::to_string(kLimits[d]), env, tunables, "block");
    }
    if (!product.empty() && !(dims.size() == 1 && is_identifier(trim_all(dims[0]))))  // a bare name: its values keep the limit
      add_constraint(l, product + " <= " + std::to_string(kMaxThreadsPerBlock), env, tunables, "block");
    kernel_constraints(l, env, tunables);
  }

  // The launched kernel's own static_asserts and static shared memory, its
  // template parameters replaced by the launch's arguments.
  void kernel_constraints(LaunchRead& l, std::map<std::string, std::string> env, const std::set<std::string>& tunables) {
    KernelText k;
    bool found = kernel_text(m_code, l.site.kernel, &k);
    for (std::size_t h = 0; !found && h < m_header_code.size(); ++h) found = kernel_text(m_header_code[h], l.site.kernel, &k);
    if (!found) return;
    std::vector<std::string> args = l.templ.end > l.templ.begin
                                        ? split_top(m_code.substr(l.templ.begin, l.templ.end - l.templ.begin), ',')
                                        : std::vector<std::string>{};
    for (std::size_t i = 0; i < k.params.size() && i < args.size(); ++i) {
      const std::string value = folded(args[i], env, tunables);
      if (!k.params[i].empty() && !value.empty()) env[k.params[i]] = "(" + value + ")";
    }
    add_derived(k.body, &env);
    for (const std::string& a : first_arguments(k.body, "static_assert"))
      add_constraint(l, a, env, tunables, "static_assert in " + l.site.kernel);
    // `assert(BM * BK == blockDim.x)`: the launch's block is known in terms of the tunables.
    const std::vector<std::string> dims = block_dimensions(m_code, l);
    for (std::string a : first_arguments(k.body, "assert")) {
      if (a.find("blockDim.") == std::string::npos) continue;
      for (std::size_t d = 0; d < 3; ++d) {
        const std::string member = std::string("blockDim.") + "xyz"[d];
        const std::string with = "(" + (d < dims.size() ? dims[d] : std::string("1")) + ")";
        for (std::size_t p = a.find(member); p != std::string::npos; p = a.find(member, p + with.size()))
          a.replace(p, member.size(), with);
      }
      add_constraint(l, a, env, tunables, "assert in " + l.site.kernel);
    }
    std::string bytes = shared_bytes(k.body);
    if (!bytes.empty())
      add_constraint(l, bytes + " <= " + std::to_string(kMaxStaticSharedBytes), env, tunables,
                     "static shared memory of " + l.site.kernel);
  }

  LaunchTunables finish() {
    LaunchTunables out;
    std::vector<Edit> edits;
    std::string head;
    for (Found& f : m_found) {
      edits.insert(edits.end(), f.edits.begin(), f.edits.end());
      if (f.t.kind != "define")
        head += "#ifndef " + f.t.tunable.name + "\n#define " + f.t.tunable.name + " " + f.t.tunable.default_value +
                "\n#endif\n";
      out.tunables.push_back(f.t);
    }
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.span.begin > b.span.begin; });
    std::string body = m_text;
    std::size_t last = std::string::npos;
    for (const Edit& e : edits) {
      if (e.span.end > last) continue;  // overlapping edits: the later one in the text wins
      body.replace(e.span.begin, e.span.end - e.span.begin, e.with);
      last = e.span.begin;
    }
    out.text = edits.empty() ? m_text : head + (head.empty() ? "" : line_directive(m_file)) + body;
    for (const LaunchRead& l : m_launches) out.sites.push_back(l.site);
    out.constraints = m_constraints;
    out.notes.assign(m_notes.begin(), m_notes.end());
    return out;
  }

  const std::string& m_text;
  const std::string m_file;
  const std::string m_code;
  std::vector<Block> m_blocks;
  std::vector<LaunchRead> m_launches;
  std::vector<std::string> m_headers, m_header_code;
  std::map<std::string, std::string> m_known;
  std::set<std::string> m_taken;
  std::vector<Found> m_found;
  std::vector<Constraint> m_constraints;
  std::set<std::string> m_constraint_texts;
  std::set<std::string> m_notes;
};

}  // namespace

LaunchTunables find_launch_tunables(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                    const std::vector<std::string>& include_dirs) {
  return Finder(text, file, declared, include_dirs).run();
}

LaunchTunables add_launch_tunables(SpaceDecl& decl, const std::string& text, const std::string& file,
                                   const std::vector<std::string>& include_dirs) {
  if (!decl.discover) return {text, {}, {}, {}, {}};
  LaunchTunables found = find_launch_tunables(text, file, decl, include_dirs);
  for (const FoundTunable& t : found.tunables) decl.tunables.push_back(t.tunable);
  decl.constraints.insert(decl.constraints.end(), found.constraints.begin(), found.constraints.end());
  return found;
}

}  // namespace kernelblaster::search
