#include "tuner/shared_entry.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "tuner/constraint.h"
#include "tuner/flag_space.h"

namespace kernelblaster::tuner {

namespace {

bool identifier(const std::string& s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s.front())) &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

bool token(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
  });
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// One prelude line: `#define NAME VALUE` or `#undef NAME`, blank lines aside.
std::string prelude_line_refusal(const std::string& line) {
  std::istringstream words(line);
  std::string directive, name, value, more;
  words >> directive >> name >> value >> more;
  if (directive.empty()) return "";
  if (directive == "#undef" && value.empty()) return identifier(name) ? "" : "prelude line " + quoted(line) + " is not a plain #undef";
  if (directive == "#define" && more.empty()) {
    const std::string why = setting_refusal(name, value);
    return why.empty() ? "" : "prelude line " + quoted(line) + ": " + why;
  }
  return "prelude line " + quoted(line) + " is neither a plain #define nor an #undef";
}

}  // namespace

bool tuner_sets_flag(const std::string& flag, const std::string& arch) {
  if (flag.empty()) return false;  // each dimension's "no flag" is no flag to pass
  for (const FlagDimension& d : default_flag_dimensions(arch))
    if (std::find(d.values.begin(), d.values.end(), flag) != d.values.end()) return true;
  const std::string regs = "--maxrregcount=";
  if (flag.rfind(regs, 0) == 0) {
    const std::string n = flag.substr(regs.size());
    if (n.empty() || n.size() > 3 || !std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isdigit(c); }))
      return false;
    const int count = std::stoi(n);
    return count >= 16 && count <= 255;
  }
  for (const char* op : {"ca", "cg", "cs", "cv"})
    if (flag == std::string("-Xptxas=-dlcm=") + op) return true;
  return false;
}

std::string setting_refusal(const std::string& name, const std::string& value) {
  if (!identifier(name)) return "define name " + quoted(name) + " is not an identifier";
  if (!token(value)) return "define " + name + "'s value " + quoted(value) + " is not one plain token";
  return "";
}

std::string entry_refusal(const std::vector<std::string>& flags,
                          const std::vector<std::pair<std::string, std::string>>& defines, const std::string& prelude,
                          const std::string& arch) {
  for (const std::string& f : flags)
    if (!tuner_sets_flag(f, arch)) return "flag " + quoted(f) + " is not one the tuner sets for " + arch;
  for (const auto& [name, value] : defines)
    if (std::string why = setting_refusal(name, value); !why.empty()) return why;
  std::istringstream lines(prelude);
  for (std::string line; std::getline(lines, line);)
    if (std::string why = prelude_line_refusal(line); !why.empty()) return why;
  return "";
}

std::vector<std::pair<std::string, std::string>> entry_settings(
    const std::vector<std::pair<std::string, std::string>>& defines, const std::string& prelude) {
  std::vector<std::pair<std::string, std::string>> out = defines;
  std::istringstream lines(prelude);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string directive, name, value;
    words >> directive >> name >> value;
    if (directive == "#define" &&
        std::find(out.begin(), out.end(), std::make_pair(name, value)) == out.end())
      out.emplace_back(name, value);
  }
  return out;
}

std::string settings_refusal(const SpaceDecl& decl, const std::vector<std::pair<std::string, std::string>>& settings) {
  std::map<std::string, std::string> values;
  for (const Tunable& t : decl.tunables) values[t.name] = t.default_value;
  for (const auto& setting : settings) {
    const std::string& name = setting.first;  // a plain reference: clang's lambdas take no structured binding
    const std::string& value = setting.second;
    const auto t = std::find_if(decl.tunables.begin(), decl.tunables.end(),
                                [&name](const Tunable& x) { return x.name == name; });
    if (t == decl.tunables.end()) return "define " + name + " names no tunable this build finds in the source";
    if (std::find(t->values.begin(), t->values.end(), value) == t->values.end())
      return "define " + name + "=" + value + " is not one of its values";
    values[name] = value;
  }
  std::map<std::string, long long> numbers;
  for (const auto& [name, value] : values) {
    std::size_t used = 0;
    try {
      const long long x = std::stoll(value, &used, 0);
      if (used == value.size()) numbers[name] = x;
    } catch (const std::exception&) {
      // a token, not a number: no constraint reads it (config_space.h)
    }
  }
  for (const Constraint& c : decl.constraints) {
    try {
      if (!c.holds(numbers)) return "the settings break the constraint '" + c.text() + "'";
    } catch (const ConstraintError&) {
      // a name without a number: the space would not hold the constraint either
    }
  }
  return "";
}

}  // namespace kernelblaster::tuner
