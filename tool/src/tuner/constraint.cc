#include "tuner/constraint.h"

#include <cctype>
#include <optional>
#include <vector>

#include "common/source_lines.h"

namespace kernelblaster::tuner {

// Binary operators keep their spelling; "neg" and "!" are unary; a leaf is a
// number or a name.
struct ExprNode {
  std::string op;
  long long number = 0;
  std::string name;
  std::shared_ptr<const ExprNode> lhs, rhs;
};

namespace {

using Node = std::shared_ptr<const ExprNode>;

struct Token {
  enum Kind { number, name, op, end } kind = end;
  std::string text;
  long long value = 0;
  std::size_t column = 0;  // 1-based
};

std::vector<Token> tokenize(const std::string& s) {
  static const char* kTwoChar[] = {"&&", "||", "<=", ">=", "==", "!="};
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.column = i + 1;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_'))
        throw ConstraintError("column " + std::to_string(i + 1) + ": malformed number '" + s.substr(i, j - i + 1) + "'");
      t.kind = Token::number;
      t.text = s.substr(i, j - i);
      try {
        t.value = std::stoll(t.text);
      } catch (const std::exception&) {
        throw ConstraintError("column " + std::to_string(i + 1) + ": number out of range '" + t.text + "'");
      }
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && is_identifier_char(s[j])) ++j;
      t.kind = Token::name;
      t.text = s.substr(i, j - i);
      i = j;
    } else {
      t.kind = Token::op;
      for (const char* two : kTwoChar)
        if (s.compare(i, 2, two) == 0) t.text = two;
      if (t.text.empty()) {
        if (std::string("+-*/%<>!()").find(c) == std::string::npos)
          throw ConstraintError("column " + std::to_string(i + 1) + ": unexpected character '" + std::string(1, c) + "'");
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(t);
  }
  Token end;
  end.column = s.size() + 1;
  out.push_back(end);
  return out;
}

// Precedence climbing, C's precedence: || < && < == != < < <= > >= < + - < * / %.
class Parser {
 public:
  Parser(std::vector<Token> tokens, std::set<std::string>* names) : m_tokens(std::move(tokens)), m_names(names) {}

  Node parse() {
    if (m_tokens.front().kind == Token::end) throw ConstraintError("empty expression");
    Node n = binary(0);
    if (peek().kind != Token::end) fail("unexpected '" + peek().text + "'");
    return n;
  }

 private:
  static int precedence(const std::string& op) {
    if (op == "||") return 1;
    if (op == "&&") return 2;
    if (op == "==" || op == "!=") return 3;
    if (op == "<" || op == "<=" || op == ">" || op == ">=") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "%") return 6;
    return 0;
  }
  const Token& peek() const { return m_tokens[m_pos]; }
  [[noreturn]] void fail(const std::string& why) const {
    throw ConstraintError("column " + std::to_string(peek().column) + ": " + why);
  }

  Node binary(int min_prec) {
    Node lhs = unary();
    for (;;) {
      const Token& t = peek();
      int prec = t.kind == Token::op ? precedence(t.text) : 0;
      if (prec == 0 || prec <= min_prec) return lhs;
      std::string op = t.text;
      ++m_pos;
      Node rhs = binary(prec);
      auto n = std::make_shared<ExprNode>();
      n->op = op;
      n->lhs = lhs;
      n->rhs = rhs;
      lhs = n;
    }
  }

  Node unary() {
    const Token& t = peek();
    if (t.kind == Token::op && (t.text == "-" || t.text == "!" || t.text == "+")) {
      std::string op = t.text == "-" ? "neg" : t.text == "!" ? "!" : "+u";
      ++m_pos;
      Node operand = unary();
      if (op == "+u") return operand;
      auto n = std::make_shared<ExprNode>();
      n->op = op;
      n->lhs = operand;
      return n;
    }
    return primary();
  }

  Node primary() {
    const Token& t = peek();
    auto n = std::make_shared<ExprNode>();
    if (t.kind == Token::number) {
      n->number = t.value;
      ++m_pos;
      return n;
    }
    if (t.kind == Token::name) {
      n->name = t.text;
      m_names->insert(t.text);
      ++m_pos;
      return n;
    }
    if (t.kind == Token::op && t.text == "(") {
      ++m_pos;
      Node inner = binary(0);
      if (peek().kind != Token::op || peek().text != ")") fail("expected ')'");
      ++m_pos;
      return inner;
    }
    if (t.kind == Token::end) fail("expression ends early");
    fail("unexpected '" + t.text + "'");
  }

  std::vector<Token> m_tokens;
  std::size_t m_pos = 0;
  std::set<std::string>* m_names;
};

// nullopt: division by zero somewhere below.
std::optional<long long> eval(const ExprNode& n, const std::map<std::string, long long>& values) {
  if (n.op.empty()) {
    if (n.name.empty()) return n.number;
    auto it = values.find(n.name);
    if (it == values.end()) throw ConstraintError("'" + n.name + "' has no integer value");
    return it->second;
  }
  auto a = eval(*n.lhs, values);
  if (!a) return std::nullopt;
  if (n.op == "neg") return -*a;
  if (n.op == "!") return *a == 0 ? 1 : 0;
  // && and || short-circuit as in C, so "ITEMS != 0 && N / ITEMS > 2" is safe.
  if (n.op == "&&" && *a == 0) return 0;
  if (n.op == "||" && *a != 0) return 1;
  auto b = eval(*n.rhs, values);
  if (!b) return std::nullopt;
  const std::string& op = n.op;
  if (op == "+") return *a + *b;
  if (op == "-") return *a - *b;
  if (op == "*") return *a * *b;
  if (op == "/" || op == "%") {
    if (*b == 0) return std::nullopt;
    return op == "/" ? *a / *b : *a % *b;
  }
  if (op == "<") return *a < *b;
  if (op == "<=") return *a <= *b;
  if (op == ">") return *a > *b;
  if (op == ">=") return *a >= *b;
  if (op == "==") return *a == *b;
  if (op == "!=") return *a != *b;
  if (op == "&&" || op == "||") return *b != 0;
  throw ConstraintError("unknown operator " + op);
}

}  // namespace

Constraint::Constraint(const std::string& text) : m_text(text) {
  Parser p(tokenize(text), &m_names);
  m_root = p.parse();
}
Constraint::~Constraint() = default;
Constraint::Constraint(const Constraint&) = default;
Constraint& Constraint::operator=(const Constraint&) = default;

bool Constraint::holds(const std::map<std::string, long long>& values) const {
  auto v = eval(*m_root, values);
  return v && *v != 0;
}

std::optional<long long> Constraint::value(const std::map<std::string, long long>& values) const {
  return eval(*m_root, values);
}

}  // namespace kernelblaster::tuner
