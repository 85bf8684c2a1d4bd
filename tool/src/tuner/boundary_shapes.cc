#include "tuner/boundary_shapes.h"

#include <cctype>
#include <regex>
#include <set>

#include "common/source_lines.h"
#include "common/source_text.h"
#include "tuner/harness_reading.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {
namespace {

constexpr std::size_t npos = std::string::npos;

// One comparison of a launcher parameter with a literal: `name op value`,
// written either way round and read as if the name came first.
struct Edge {
  std::string param, op;
  long long value = 0;
};

std::string flipped(const std::string& op) {
  if (op == ">=") return "<=";
  if (op == "<=") return ">=";
  return op == ">" ? "<" : ">";
}

// The conditions of the `if`s in `body`, each the text between its parentheses.
std::vector<std::string> if_conditions(const std::string& body) {
  std::vector<std::string> out;
  static const std::regex kIf(R"(\bif\s*\()");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), kIf); it != std::sregex_iterator(); ++it) {
    const std::size_t open = static_cast<std::size_t>(it->position() + it->length()) - 1;
    const std::size_t close = matching(body, open, '(', ')');
    if (close != npos) out.push_back(body.substr(open + 1, close - open - 1));
  }
  return out;
}

std::vector<Edge> edges_in(const std::string& condition) {
  std::vector<Edge> out;
  static const std::regex kNameFirst(R"(\b([A-Za-z_]\w*)\s*(>=|<=|>|<)\s*(\d+)\b)");
  static const std::regex kValueFirst(R"((?:^|[^\w.])(\d+)\s*(>=|<=|>|<)\s*([A-Za-z_]\w*)\b)");
  for (auto it = std::sregex_iterator(condition.begin(), condition.end(), kNameFirst); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], (*it)[2], std::stoll((*it)[3])});
  for (auto it = std::sregex_iterator(condition.begin(), condition.end(), kValueFirst); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[3], flipped((*it)[2]), std::stoll((*it)[1])});
  return out;
}

// The two sizes at an edge: the last that meets the comparison and the first that does not.
std::vector<long long> sides(const Edge& e) {
  if (e.op == ">=") return {e.value, e.value - 1};
  if (e.op == ">") return {e.value + 1, e.value};
  if (e.op == "<=") return {e.value, e.value + 1};
  return {e.value - 1, e.value};
}

// The parameter names of a function whose parameter list is `list`, in order.
std::vector<std::string> parameter_names(const std::string& list) {
  std::vector<std::string> out;
  for (const std::string& p : split_top(list, ',')) {
    const std::vector<std::string> ids = identifiers(p.substr(0, p.find('=')));
    out.push_back(ids.empty() ? "" : ids.back());
  }
  return out;
}

// The recorded size to move to `value` along `dim`: the one with the
// smallest value of it above `value` (moving down only); null when none.
const HarnessSize* base_for(const std::vector<HarnessSize>& sizes, const std::string& dim, long long value) {
  const HarnessSize* best = nullptr;
  for (const HarnessSize& s : sizes) {
    auto v = s.dims.find(dim);
    if (v == s.dims.end()) continue;
    if (v->second == value) return nullptr;  // a recorded size is already there
    if (v->second > value && (!best || v->second < best->dims.at(dim))) best = &s;
  }
  return best;
}

// The spans of the harness's `.size(...)` and `.validation_size(...)` calls,
// from the dot to after the closing parenthesis; empty when one does not close.
std::vector<Span> size_calls(const std::string& text) {
  std::vector<Span> out;
  static const std::regex kSize(R"(\.(validation_)?size\s*\()");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kSize); it != std::sregex_iterator(); ++it) {
    const std::size_t dot = static_cast<std::size_t>(it->position());
    const std::size_t close = matching(text, dot + static_cast<std::size_t>(it->length()) - 1, '(', ')');
    if (close == npos) return {};
    out.push_back({dot, close + 1});
  }
  return out;
}

// The shapes as a chain of `.size(...)` calls, each after a comment naming
// the edge it comes from, the lines after the first indented as a chain.
std::string size_lines(const std::vector<BoundaryShape>& shapes) {
  std::string out;
  for (const BoundaryShape& s : shapes) {
    out += std::string(out.empty() ? "" : "\n      ") + "// the edge of " + s.why + "\n      .size(\"" + s.label() + "\", {";
    bool first = true;
    for (const auto& [dim, value] : s.dims) {
      out += std::string(first ? "" : ", ") + "{\"" + dim + "\", " + std::to_string(value) + "}";
      first = false;
    }
    out += "})";
  }
  return out;
}

}  // namespace

std::vector<BoundaryShape> boundary_shapes(const std::string& harness_text, const std::string& source_text,
                                           std::size_t cap) {
  std::vector<BoundaryShape> out;
  const std::vector<HarnessSize> sizes = labelled_harness_sizes(harness_text);
  if (sizes.empty()) return out;
  const std::string code = without_preprocessor_lines(code_only(source_text));
  std::set<std::pair<std::string, long long>> seen;
  for (const reading::Block& b : reading::blocks_of(code)) {
    if (!b.function || b.device || b.name.empty()) continue;
    const std::vector<std::string> dims = passed_dims(harness_text, b.name);
    if (dims.empty()) continue;  // not a launcher the harness calls
    const std::vector<std::string> params =
        parameter_names(code.substr(b.params.begin + 1, b.params.end - b.params.begin - 1));
    const std::string body = code.substr(b.span.begin, b.span.end - b.span.begin);
    for (const std::string& condition : if_conditions(body))
      for (const Edge& e : edges_in(condition)) {
        std::string dim;
        for (std::size_t i = 0; i < params.size() && i < dims.size(); ++i)
          if (params[i] == e.param) dim = dims[i];
        if (dim.empty()) continue;  // not a parameter the harness passes a size to
        for (long long v : sides(e)) {
          if (v < 1 || !seen.insert({dim, v}).second || out.size() >= cap) continue;
          const HarnessSize* base = base_for(sizes, dim, v);
          if (!base) continue;
          BoundaryShape s;
          s.dim = dim;
          s.value = v;
          s.dims = base->dims;
          s.dims[dim] = v;
          s.why = e.param + " " + e.op + " " + std::to_string(e.value) + " in " + b.name;
          out.push_back(std::move(s));
        }
      }
  }
  return out;
}

std::string edges_only_harness(const std::string& harness_text, const std::vector<BoundaryShape>& shapes) {
  const std::vector<Span> calls = size_calls(harness_text);
  if (shapes.empty() || calls.empty()) return "";
  std::string out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    // Each call goes with the space before it; the first gives way to the shapes.
    std::size_t from = calls[i].begin;
    while (i > 0 && from > at && std::isspace(static_cast<unsigned char>(harness_text[from - 1]))) --from;
    out += harness_text.substr(at, from - at);
    if (i == 0) out += size_lines(shapes);
    at = calls[i].end;
  }
  return out + harness_text.substr(at);
}

}  // namespace kernelblaster::tuner
