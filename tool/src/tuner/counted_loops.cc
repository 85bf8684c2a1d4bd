#include "tuner/counted_loops.h"

#include <cctype>
#include <utility>
#include <vector>

#include "common/source_text.h"
#include "tuner/constraint.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {

using Env = std::map<std::string, std::string>;

// The integer `expr` comes to with the names of `env`; none where a name stays unknown.
std::optional<long long> integer_of(const std::string& expr, const Env& env) {
  const std::string f = reading::folded(expr, env, {});
  if (f.empty()) return std::nullopt;
  try {
    Constraint c(f);
    if (!c.names().empty()) return std::nullopt;
    return c.value({});
  } catch (const ConstraintError&) {
    return std::nullopt;  // not an expression it can fold: no value, so no rewrite rests on it
  }
}

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `var` is written in `body`: assigned, stepped or its address taken.
bool written_in(const std::string& body, const std::string& var) {
  for (std::size_t at : word_positions(body, var)) {
    const std::size_t after = body.find_first_not_of(" \t\r\n", at + var.size());
    const std::string next = after == std::string::npos ? "" : body.substr(after, 3);
    if (next.rfind("++", 0) == 0 || next.rfind("--", 0) == 0) return true;
    if (!next.empty() && next[0] == '=' && next.rfind("==", 0) != 0) return true;
    if (next.size() >= 2 && next[1] == '=' && std::string("+-*/%&|^").find(next[0]) != std::string::npos) return true;
    if (next.rfind("<<=", 0) == 0 || next.rfind(">>=", 0) == 0) return true;
    const std::size_t b = reading::skip_space_back(body, at);  // body[b - 1]: the character before
    if (b >= 2 && (body.compare(b - 2, 2, "++") == 0 || body.compare(b - 2, 2, "--") == 0)) return true;
    if (b >= 1 && body[b - 1] == '&') {
      const std::size_t p = reading::skip_space_back(body, b - 1);
      const char c = p == 0 ? ';' : body[p - 1];
      if (!is_name_char(c) && c != ')' && c != ']' && c != '&') return true;  // `&var`, not `a & var`
    }
  }
  return false;
}

// The trip count of `for (var = init; var OP bound; var += step)`.
std::optional<long long> trip_count(long long init, const std::string& op, long long bound, long long step) {
  if (step == 0) return std::nullopt;
  long long n = -1;
  if (op == "<" && step > 0) n = bound > init ? (bound - init + step - 1) / step : 0;
  if (op == "<=" && step > 0) n = bound >= init ? (bound - init) / step + 1 : 0;
  if (op == ">" && step < 0) n = init > bound ? (init - bound - step - 1) / -step : 0;
  if (op == ">=" && step < 0) n = init >= bound ? (init - bound) / -step + 1 : 0;
  if (op == "!=" && (bound - init) % step == 0 && (bound - init) / step >= 0) n = (bound - init) / step;
  if (n < 0) return std::nullopt;
  return n;
}

// `var OP bound` (or `bound OP var`, turned around): the operator and the bound.
bool comparison(const std::string& cond, const std::string& var, std::string* op, std::string* bound) {
  static const std::vector<std::pair<std::string, std::string>> ops = {
      {"<=", ">="}, {">=", "<="}, {"!=", "!="}, {"<", ">"}, {">", "<"}};
  for (const auto& [o, turned] : ops) {
    const std::size_t at = cond.find(o);
    if (at == std::string::npos || cond.find(o, at + o.size()) != std::string::npos) continue;
    if (o.size() == 1 && (cond.find("<<") != std::string::npos || cond.find(">>") != std::string::npos)) return false;
    const std::string lhs = reading::trim_all(cond.substr(0, at)), rhs = reading::trim_all(cond.substr(at + o.size()));
    if (lhs == var && !mentions(rhs, var)) *op = o, *bound = rhs;
    else if (rhs == var && !mentions(lhs, var)) *op = turned, *bound = lhs;
    else return false;
    return true;
  }
  return false;
}

// The step of `++v`, `v++`, `--v`, `v--`, `v += e`, `v -= e`: signed, as
// text (`by`), and `e` as written (`written`, "" for the others); false
// for any other step.
bool step_of(const std::string& step, const std::string& var, std::string* by, std::string* written) {
  const std::string s = reading::trim_all(step);
  if (s == "++" + var || s == var + "++") return *by = "1", true;
  if (s == "--" + var || s == var + "--") return *by = "-1", true;
  for (const char* op : {"+=", "-="}) {
    const std::size_t at = s.find(op);
    if (at == std::string::npos || reading::trim_all(s.substr(0, at)) != var) continue;
    const std::string e = reading::trim_all(s.substr(at + 2));
    if (e.empty() || mentions(e, var)) return false;
    *by = op[0] == '+' ? "(" + e + ")" : "-(" + e + ")";
    *written = e;
    return true;
  }
  return false;
}

}  // namespace

std::optional<CountedLoop> counted_loop(const std::string& code, std::size_t at, const Env& env) {
  const std::size_t open = code.find_first_not_of(" \t\r\n", at + 3);
  if (open == std::string::npos || code[open] != '(') return std::nullopt;
  const std::size_t close = matching(code, open, '(', ')');
  if (close == std::string::npos) return std::nullopt;
  const std::vector<std::string> parts = split_top(code.substr(open + 1, close - open - 1), ';');
  if (parts.size() != 3) return std::nullopt;
  const std::size_t eq = parts[0].find('=');
  if (eq == std::string::npos || parts[0].find(',') != std::string::npos) return std::nullopt;
  const std::vector<std::string> declared = identifiers(parts[0].substr(0, eq));
  if (declared.empty()) return std::nullopt;
  const std::string var = declared.back(), init = parts[0].substr(eq + 1);
  std::string op, bound, by, written;
  if (!comparison(parts[1], var, &op, &bound) || !step_of(parts[2], var, &by, &written)) return std::nullopt;
  const std::size_t body_at = code.find_first_not_of(" \t\r\n", close + 1);
  if (body_at == std::string::npos) return std::nullopt;
  std::string body;
  if (code[body_at] == '{') {
    const std::size_t end = matching(code, body_at, '{', '}');
    if (end == std::string::npos) return std::nullopt;
    body = code.substr(body_at, end - body_at);
  } else {
    body = code.substr(body_at, code.find(';', body_at) - body_at);
    for (const char* word : {"for", "while", "if", "do", "switch"})
      if (mentions(body, word)) return std::nullopt;  // a statement of its own: not read here
  }
  if (written_in(body, var)) return std::nullopt;
  CountedLoop loop;
  loop.at = at;
  loop.var = var;
  loop.step_written = written;
  const auto i = integer_of(init, env), b = integer_of(bound, env), s = integer_of(by, env);
  if (i && b && s) loop.trips = trip_count(*i, op, *b, *s);
  return loop;
}

}  // namespace kernelblaster::tuner
