#include "tuner/vector_alignment.h"

#include <cctype>
#include <map>
#include <set>

#include "common/source_lines.h"
#include "common/source_text.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {
namespace {

using reading::trim_all;

// Bytes of the vector types a kernel casts to, and of the scalars it casts from.
const std::map<std::string, int>& vector_bytes() {
  static const std::map<std::string, int> m = {
      {"float4", 16}, {"float2", 8},  {"int4", 16},    {"int2", 8},    {"uint4", 16}, {"uint2", 8},
      {"double2", 16}, {"double4", 32}, {"longlong2", 16}, {"half2", 4}, {"__half2", 4}, {"__nv_bfloat162", 4},
      {"short4", 8},  {"ushort4", 8}, {"char4", 4},    {"uchar4", 4}};
  return m;
}
const std::map<std::string, int>& scalar_bytes() {
  static const std::map<std::string, int> m = {
      {"float", 4}, {"int", 4},  {"unsigned", 4}, {"uint", 4},   {"uint32_t", 4}, {"int32_t", 4}, {"double", 8},
      {"half", 2},  {"__half", 2}, {"__nv_bfloat16", 2}, {"short", 2}, {"char", 1}, {"int8_t", 1}, {"uint8_t", 1},
      {"int64_t", 8}, {"long", 8}, {"longlong", 8}, {"ushort", 2}, {"uchar", 1}};
  return m;
}
// The scalar a vector type is made of: its name less the count (float4: float).
int component_bytes(const std::string& vec) {
  auto it = scalar_bytes().find(vec.substr(0, vec.size() - 1));
  return it == scalar_bytes().end() ? 1 : it->second;
}

// "(x)" → "x" while the outer parentheses enclose it all.
std::string unwrapped(std::string s) {
  s = trim_all(s);
  while (s.size() >= 2 && s.front() == '(' && matching(s, 0, '(', ')') == s.size() - 1) s = trim_all(s.substr(1, s.size() - 2));
  return s;
}

// Splits at depth-0 binary `op` (a single character), ignoring unary uses.
std::vector<std::string> split_binary(const std::string& s, char op) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth != 0 || (c != op && !(op == '+' && c == '-'))) continue;
    std::size_t p = i;
    while (p > from && std::isspace(static_cast<unsigned char>(s[p - 1]))) --p;
    const bool binary = p > from && (is_identifier_char(s[p - 1]) || s[p - 1] == ')' || s[p - 1] == ']');
    if (!binary) continue;
    if (i + 1 < s.size() && (s[i + 1] == op || s[i + 1] == '=' || (c == '-' && s[i + 1] == '>'))) return {};  // ++, +=, ->
    out.push_back(trim_all(s.substr(from, i - from)));
    from = i + 1;
  }
  out.push_back(trim_all(s.substr(from)));
  return out;
}

// One product term of an index: its compile-time factors, whether it holds
// a problem value or something unread.
struct Term {
  std::vector<std::string> constants;
  bool problem = false, unread = false;
};

class IndexReader {
 public:
  explicit IndexReader(const AlignmentNames& names) : m_names(names) {}

  std::vector<Term> terms(const std::string& expr, int depth = 0) const {
    std::vector<Term> out;
    const std::vector<std::string> sums = split_binary(unwrapped(expr), '+');
    if (sums.empty() || depth > 4) return {Term{{}, false, true}};
    for (const std::string& t : sums) {
      std::vector<Term> product = factors(t, depth);
      out.insert(out.end(), product.begin(), product.end());
      if (out.size() > 64) return {Term{{}, false, true}};
    }
    return out;
  }

 private:
  std::vector<Term> factors(const std::string& term, int depth) const {
    if (m_names.compile_time(term)) return {Term{{term}, false, false}};
    std::vector<Term> acc{Term{}};
    for (const std::string& f : split_binary(term, '*')) {
      const std::string u = unwrapped(f);
      if (u.empty()) return {Term{{}, false, true}};
      if (m_names.compile_time(u)) {
        for (Term& t : acc) t.constants.push_back(u);
      } else if (trim_all(f) != u) {  // a parenthesized sum: distributed over
        acc = distributed(acc, terms(u, depth + 1));
      } else if (const std::vector<Term> through = local(u, depth); !through.empty()) {
        acc = distributed(acc, through);
      } else if (is_name(u)) {
        const std::string base = u.substr(0, u.find('.'));
        if (m_names.problem(base))
          for (Term& t : acc) t.problem = true;
        // else: a run-time value that can be 1 (threadIdx.x, a loop counter): no constant part
      } else {
        for (Term& t : acc) t.unread = true;
      }
    }
    return acc;
  }

  // A product's terms times each of `inner`'s.
  static std::vector<Term> distributed(const std::vector<Term>& acc, const std::vector<Term>& inner) {
    std::vector<Term> next;
    for (const Term& a : acc)
      for (const Term& b : inner) {
        Term t = a;
        t.constants.insert(t.constants.end(), b.constants.begin(), b.constants.end());
        t.problem = a.problem || b.problem;
        t.unread = a.unread || b.unread;
        next.push_back(std::move(t));
      }
    return next;
  }

  // A local's initializer as terms, where each reads; else none (the local
  // is then a run-time value that can be 1).
  std::vector<Term> local(const std::string& name, int depth) const {
    if (!is_identifier(name) || !m_names.definition) return {};
    const std::string def = m_names.definition(name);
    if (def.empty()) return {};
    std::vector<Term> t = terms(def, depth + 1);
    for (const Term& x : t)
      if (x.unread) return {};
    return t;
  }

  // `threadIdx.x`, `col`: a name or a member of one.
  static bool is_name(const std::string& s) {
    for (const std::string& part : split_binary(s, '.'))
      if (!is_identifier(part)) return false;
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0]));
  }

  const AlignmentNames& m_names;
};

// A vector access: the vector type and its operand (`&C[i]`, `C + i`).
struct Access {
  std::string type, operand;
};

std::vector<Access> accesses(const std::string& body) {
  std::vector<Access> out;
  for (std::size_t p : word_positions(body, "reinterpret_cast")) {
    const std::size_t lt = body.find('<', p);
    if (lt == std::string::npos) continue;
    const std::size_t gt = body.find('>', lt);
    const std::size_t open = gt == std::string::npos ? gt : body.find_first_not_of(" \t\r\n", gt + 1);
    if (open == std::string::npos || body[open] != '(') continue;
    const std::size_t close = matching(body, open, '(', ')');
    const std::string type = body.substr(lt + 1, gt - lt - 1);
    if (close == std::string::npos || type.find('*') == std::string::npos) continue;
    for (const std::string& id : identifiers(type))
      if (vector_bytes().count(id)) out.push_back({id, body.substr(open + 1, close - open - 1)});
  }
  // C-style: (float4 *)(&x[i]), (const float4*)&x[i]
  for (const auto& [vec, bytes] : vector_bytes())
    for (std::size_t p : word_positions(body, vec)) {
      std::size_t star = body.find_first_not_of(" \t", p + vec.size());
      if (star == std::string::npos || body[star] != '*') continue;
      std::size_t close = body.find_first_not_of(" \t", star + 1);
      std::size_t open = body.rfind('(', p);
      if (close == std::string::npos || body[close] != ')' || open == std::string::npos ||
          trim_all(body.substr(open + 1, p - open - 1)).find_first_not_of("const ") != std::string::npos)
        continue;
      std::size_t at = body.find_first_not_of(" \t\r\n", close + 1);
      if (at == std::string::npos) continue;
      std::size_t end = std::string::npos;
      if (body[at] == '(') end = matching(body, at, '(', ')');
      else if (body[at] == '&') {
        std::size_t b = body.find('[', at);
        end = b == std::string::npos ? b : matching(body, b, '[', ']');
      }
      if (end != std::string::npos) out.push_back({vec, body.substr(at, end - at + 1)});
    }
  return out;
}

// The array an operand points into and the index expressions of the
// pointer's own offsets, in the body; false when it is not read.
struct Pointed {
  std::string array;
  std::vector<std::string> indices;  // each a sum of terms
  std::vector<std::string> carried;  // `p += e` offsets: e times a count
};

bool split_operand(std::string op, std::string* name, std::string* index) {
  op = unwrapped(op);
  if (!op.empty() && op[0] == '&') {
    op = trim_all(op.substr(1));
    const std::size_t b = op.find('[');
    if (b == std::string::npos || matching(op, b, '[', ']') != op.size() - 1) return false;
    *name = trim_all(op.substr(0, b));
    *index = op.substr(b + 1, op.size() - b - 2);
    return is_identifier(*name);
  }
  const std::vector<std::string> sums = split_binary(op, '+');
  if (sums.empty() || !is_identifier(sums[0])) return false;
  *name = sums[0];
  for (std::size_t i = 1; i < sums.size(); ++i) *index += (index->empty() ? "" : " + ") + sums[i];
  return true;
}

void pointer_offsets(const std::string& body, const std::string& name, int depth, Pointed* out) {
  for (std::size_t p : word_positions(body, name)) {
    std::size_t at = body.find_first_not_of(" \t\r\n", p + name.size());
    if (at == std::string::npos) continue;
    const std::size_t semi = body.find(';', at);
    if (semi == std::string::npos) continue;
    if (body.compare(at, 2, "+=") == 0) {
      out->carried.push_back(body.substr(at + 2, semi - at - 2));
    } else if (body[at] == '=' && body[at + 1] != '=' && depth < 3) {
      std::string base, index;
      if (!split_operand(body.substr(at + 1, semi - at - 1), &base, &index)) continue;
      if (!index.empty()) out->indices.push_back(index);
      if (base != name) pointer_offsets(body, base, depth + 1, out);
    }
  }
}

// The element size of `name` from its declaration (`float *C`, `__shared__
// float As[...]`); 0 when none is found.
int element_bytes(const std::string& text, const std::string& name) {
  for (std::size_t p : word_positions(text, name)) {
    std::size_t q = p;
    while (q > 0 && (std::isspace(static_cast<unsigned char>(text[q - 1])) || text[q - 1] == '*')) --q;
    std::vector<std::string> before = identifiers(text.substr(q >= 40 ? q - 40 : 0, q - (q >= 40 ? q - 40 : 0)));
    while (!before.empty() && (before.back() == "const" || before.back() == "__restrict__" || before.back() == "__restrict"))
      before.pop_back();
    if (before.empty()) continue;
    if (auto s = scalar_bytes().find(before.back()); s != scalar_bytes().end()) return s->second;
    if (auto v = vector_bytes().find(before.back()); v != vector_bytes().end()) return v->second;
  }
  return 0;
}

}  // namespace

std::vector<std::string> parameter_names(const std::string& signature) {
  std::vector<std::string> out;
  for (const std::string& p : split_top(signature, ',')) {
    std::vector<std::string> ids = identifiers(p.substr(0, p.find('=')));
    if (!ids.empty()) out.push_back(ids.back());
  }
  return out;
}

std::vector<AlignmentNeed> vector_alignment_needs(const std::string& body, const std::string& signature,
                                                  const AlignmentNames& names) {
  std::vector<AlignmentNeed> out;
  std::set<std::pair<std::string, int>> seen;
  const IndexReader reader(names);
  for (const Access& a : accesses(body)) {
    Pointed ptr;
    std::string index;
    if (!split_operand(a.operand, &ptr.array, &index)) continue;
    if (!index.empty()) ptr.indices.push_back(index);
    pointer_offsets(body, ptr.array, 0, &ptr);
    int elem = element_bytes(signature + ";\n" + body, ptr.array);
    if (elem == 0) elem = component_bytes(a.type);
    const int width = vector_bytes().at(a.type) / elem;
    if (width <= 1 || vector_bytes().at(a.type) % elem != 0) continue;
    std::vector<Term> terms;
    for (const std::string& i : ptr.indices) {
      std::vector<Term> t = reader.terms(i);
      terms.insert(terms.end(), t.begin(), t.end());
    }
    for (const std::string& c : ptr.carried) {
      std::vector<Term> t = reader.terms(c);
      terms.insert(terms.end(), t.begin(), t.end());
    }
    for (const Term& t : terms) {
      if (t.problem || t.unread || t.constants.empty()) continue;
      std::string product;
      for (const std::string& c : t.constants) product += (product.empty() ? "(" : " * (") + c + ")";
      if (!names.tunable(product) || !seen.insert({product, width}).second) continue;
      out.push_back({product, width, a.type + " accesses to " + ptr.array});
    }
  }
  return out;
}

}  // namespace kernelblaster::tuner
