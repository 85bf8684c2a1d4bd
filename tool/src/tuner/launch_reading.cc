#include "tuner/launch_reading.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/file_util.h"
#include "common/include_scan.h"
#include "common/source_lines.h"
#include "tuner/discovery.h"

namespace kernelblaster::tuner::reading {
namespace {

namespace fs = std::filesystem;

std::string function_name(const std::string& code, std::size_t close, std::size_t* name_at, std::size_t* open_at) {
  int depth = 0;
  std::size_t p = close + 1;
  while (p > 0) {
    --p;
    if (code[p] == ')') ++depth;
    if (code[p] == '(' && --depth == 0) break;
  }
  *open_at = p;
  std::size_t e = skip_space_back(code, p), b = e;
  while (b > 0 && is_identifier_char(code[b - 1])) --b;
  *name_at = b;
  return code.substr(b, e - b);
}

const std::set<std::string>& integral_words() {
  static const std::set<std::string> words = {"static",   "const",    "constexpr", "unsigned", "signed",
                                              "int",      "uint",     "long",      "short",    "size_t",
                                              "int32_t",  "uint32_t", "int64_t",   "uint64_t", "auto",
                                              "unsigned_int", "__device__", "__constant__", "inline"};
  return words;
}

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

// `name.x = e;` (and .y, .z) inside `region`: each e. A dim3 set member by
// member (`dimBlock.x = k_blockDimX;`) is shaped by what its members are set to.
std::vector<std::string> member_settings_in(const std::string& code, Span region, const std::string& name) {
  std::vector<std::string> out;
  const std::string part = code.substr(region.begin, region.end - region.begin);
  for (std::size_t p : word_positions(part, name)) {
    std::size_t q = p + name.size();
    if (q + 1 >= part.size() || part[q] != '.' || std::string("xyz").find(part[q + 1]) == std::string::npos) continue;
    q += 2;
    if (q < part.size() && is_identifier_char(part[q])) continue;
    while (q < part.size() && (part[q] == ' ' || part[q] == '\t')) ++q;
    if (q + 1 >= part.size() || part[q] != '=' || part[q + 1] == '=') continue;
    const std::size_t semi = part.find(';', q);
    if (semi != std::string::npos) out.push_back(part.substr(q + 1, semi - q - 1));
  }
  return out;
}

std::string shape_of(const std::string& code, Span region, const std::string& expr, int depth) {
  std::string all = expr;
  if (depth == 0) return all;
  std::set<std::string> seen;
  for (const std::string& id : identifiers(expr))
    if (seen.insert(id).second) {
      for (const std::string& s : settings_in(code, region, id)) all += " ; " + shape_of(code, region, s, depth - 1);
      for (const std::string& s : member_settings_in(code, region, id))
        all += " ; " + shape_of(code, region, s, depth - 1);
    }
  return all;
}


}  // namespace

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

std::vector<LaunchRead> read_launches(const std::string& code, const std::string& text, const std::vector<Block>& blocks,
                                      const std::vector<LaunchSite>& sites) {
  std::vector<LaunchRead> out = read_launches(code, text, blocks);
  for (std::size_t i = 0; i < out.size() && i < sites.size(); ++i)
    if (sites[i].line == out[i].site.line) out[i].site = sites[i];
  return out;
}

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
        std::size_t open_at = 0;
        b.name = function_name(code, e - 1, &b.name_at, &open_at);
        b.params = {open_at, e - 1};
        b.head = code.substr(statement_start, b.name_at - std::min(b.name_at, statement_start));
        b.function = !b.name.empty() && b.name != "if" && b.name != "for" && b.name != "while" && b.name != "switch";
        b.device = mentions(b.head, "__global__") || mentions(b.head, "__device__");
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

int block_at(const std::vector<Block>& blocks, std::size_t pos, bool functions) {
  int best = -1;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (pos > b.span.begin && pos < b.span.end && (!functions || b.function)) {
      if (best < 0 || b.span.begin > blocks[static_cast<std::size_t>(best)].span.begin) best = static_cast<int>(i);
    }
  }
  return best;
}

// The words before position `p` back to the statement's start.

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
                                        const std::vector<std::string>& include_dirs) {
  std::vector<std::string> out;
  for (const std::string& path : scan_includes_of_text(text, dir.string(), include_dirs)) {
    std::string header;
    if (read_file_if_present(path, &header)) out.push_back(std::move(header));
  }
  return out;
}

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
    out->signature = code.substr(open + 1, params_end - open - 1);
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
  // File-scope constants of other integer expressions (`const size_t N =
  // 8ULL * 1024ULL * 1024ULL;`): the text outside every block.
  std::string file_scope = code;
  for (const Block& b : blocks)
    for (std::size_t i = b.span.begin; i < b.span.end && i < file_scope.size(); ++i)
      if (file_scope[i] != '\n') file_scope[i] = ' ';
  add_derived(file_scope, known);
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
    // Names that stand for several names each grow the text by a factor a
    // round: past this it is no expression a program's author wrote, and
    // folding on would take time without end (a fuzzed stencil did).
    if (expr.size() > kMaxFoldedLength) return "";
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

std::string host_data_use(const std::string& code, const std::string& name) {
  auto line_of = [&](std::size_t at) { return 1 + std::count(code.begin(), code.begin() + at, '\n'); };
  for (const char* call : {"malloc", "calloc", "realloc", "cudaMalloc", "cudaMallocHost", "cudaMallocManaged",
                           "cudaHostAlloc", "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset"})
    for (std::size_t p : word_positions(code, call)) {
      std::size_t open = code.find_first_not_of(" \t\n", p + std::strlen(call));
      if (open == std::string::npos || code[open] != '(') continue;
      std::size_t close = matching(code, open, '(', ')');
      if (close != std::string::npos && mentions(code.substr(open, close - open), name))
        return std::string(call) + " at line " + std::to_string(line_of(p));
    }
  for (std::size_t p : word_positions(code, "new")) {
    std::size_t open = code.find_first_of("[;(", p);
    if (open == std::string::npos || code[open] != '[') continue;
    std::size_t close = matching(code, open, '[', ']');
    if (close != std::string::npos && mentions(code.substr(open, close - open), name))
      return "new[] at line " + std::to_string(line_of(p));
  }
  return "";
}

long long launch_bound(const std::vector<const std::string*>& codes, const std::string& name,
                       const std::map<std::string, std::string>& known) {
  if (name.empty()) return 0;
  for (const std::string* code : codes)
    for (std::size_t p : word_positions(*code, "__launch_bounds__")) {
      const std::size_t open = code->find('(', p);
      const std::size_t close = open == std::string::npos ? open : matching(*code, open, '(', ')');
      if (close == std::string::npos) continue;
      // The kernel it bounds: the first name after it that opens a parameter list.
      const std::size_t paren = code->find('(', close + 1);
      const std::size_t stop = code->find_first_of(";{}", close + 1);
      if (paren == std::string::npos || (stop != std::string::npos && stop < paren)) continue;
      const std::vector<std::string> ids = identifiers(code->substr(close + 1, paren - close - 1));
      if (ids.empty() || ids.back() != name) continue;
      const std::string first = trim_all(split_top(code->substr(open + 1, close - open - 1), ',').front());
      long long v = integer_literal(first);
      if (auto k = known.find(first); v <= 0 && k != known.end()) v = integer_literal(k->second);
      if (v > 0) return v;
    }
  return 0;
}

// Bytes of the static `__shared__` arrays of a kernel body, as an expression.

std::string shared_bytes(const std::string& body) {
  // cuda::barrier of a block's scope: one 64-bit mbarrier (SGEMM_CUDA's
  // kernel 12 keeps two beside its 48 KiB of tiles, 0xc010 bytes by ptxas).
  static const std::map<std::string, int> sizes = {{"float", 4}, {"int", 4},    {"unsigned", 4}, {"uint", 4},
                                                   {"double", 8}, {"half", 2},  {"__half", 2},   {"float2", 8},
                                                   {"float4", 16}, {"char", 1}, {"short", 2},    {"long", 8},
                                                   {"barrier", 8}};
  std::string sum;
  for (std::size_t p : word_positions(body, "__shared__")) {
    std::size_t semi = body.find(';', p);
    std::string decl = body.substr(p + 10, semi - p - 10);
    std::vector<std::string> ids = identifiers(decl.substr(0, decl.find('[')));
    std::size_t start = body.find_last_of(";{}", p);
    const bool external = mentions(body.substr(start == std::string::npos ? 0 : start, p), "extern");
    if (external) continue;
    int size = 0;
    for (const std::string& w : ids)
      if (sizes.count(w)) size = sizes.at(w);
    // One object of a type this reading does not know: left out, so the
    // bound stays a lower one (ptxas refuses what it misses, a cheap
    // rejection); an array of one: no limit stated.
    if (decl.find('[') == std::string::npos) {
      if (size > 0) sum += (sum.empty() ? "" : " + ") + std::to_string(size);
      continue;
    }
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

std::vector<std::string> launch_dimensions(const std::string& code, const LaunchRead& l, std::size_t arg) {
  if (l.args.size() <= arg) return {};
  std::string written = trim_all(code.substr(l.args[arg].begin, l.args[arg].end - l.args[arg].begin));
  std::vector<std::string> sets = settings_in(code, l.region, written);
  if (is_identifier(written) && !sets.empty()) return split_top(sets.back(), ',');
  if (written.rfind("dim3", 0) == 0 && written.find_first_of("({") != std::string::npos) {
    std::size_t o = written.find_first_of("({");
    return split_top(written.substr(o + 1, written.size() - o - 2), ',');
  }
  return {written};
}

std::vector<std::string> block_dimensions(const std::string& code, const LaunchRead& l) {
  return launch_dimensions(code, l, 1);
}

std::vector<std::string> call_arguments(const std::string& code, const LaunchRead& l) {
  std::size_t e = code.find(">>>", l.at);
  if (e == std::string::npos) return {};
  std::size_t open = code.find_first_not_of(" \t\r\n", e + 3);
  if (open == std::string::npos || code[open] != '(') return {};
  std::size_t close = matching(code, open, '(', ')');
  if (close == std::string::npos) return {};
  return split_top(code.substr(open + 1, close - open - 1), ',');
}

}  // namespace kernelblaster::tuner::reading
