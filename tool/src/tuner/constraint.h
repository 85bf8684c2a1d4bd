// Constraints between tunables, e.g. "BLOCK_SIZE * ITEMS <= 4096": integer
// expressions with + - * / %, comparisons, && || !, unary minus and
// parentheses. A configuration is kept when every constraint is non-zero.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace kernelblaster::tuner {

// A malformed expression; what() says where ("column 7: expected ')'").
class ConstraintError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExprNode;

class Constraint {
 public:
  // Parses `text`; throws ConstraintError with the column of the problem.
  explicit Constraint(const std::string& text);
  ~Constraint();
  Constraint(const Constraint&);
  Constraint& operator=(const Constraint&);

  const std::string& text() const { return m_text; }
  // Names the expression reads.
  const std::set<std::string>& names() const { return m_names; }
  // Evaluates with integer values for the names. Throws ConstraintError for a
  // name without a value. Division or remainder by zero makes the whole
  // constraint false (the configuration is dropped), never a crash.
  bool holds(const std::map<std::string, long long>& values) const;
  // The expression's value; none where it divides by zero.
  std::optional<long long> value(const std::map<std::string, long long>& values) const;

 private:
  std::string m_text;
  std::set<std::string> m_names;
  std::shared_ptr<const ExprNode> m_root;
};

}  // namespace kernelblaster::tuner
