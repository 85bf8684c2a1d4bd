// A small command-line reader: --flag, --key VALUE, --key=VALUE, repeated keys.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelblaster {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The one way a command with subcommands reports a missing or unknown one:
// "missing subcommand: one of a, b" or "unknown subcommand 'x': one of a,
// b", which the command prints after its name, with "(see --help)".
// `argv` is the command's arguments.
UsageError subcommand_error(const std::vector<std::string>& argv, const std::vector<std::string>& known);

// The frame a subcommand runs in: `--help` or `-h` before any `--` prints
// `help` and exits 0; otherwise `body` runs, and an exception out of it is
// one line and exit 2: "kernelblaster NAME: WHAT (see --help)" for a
// UsageError, "kernelblaster NAME: WHAT" for any other std::exception.
int run_command(const char* name, const char* help, const std::vector<std::string>& argv,
                const std::function<int()>& body);

// A command's FILE-like operands apart from its options (and the values of
// `valued` options), so Args sees options only.
struct Operands {
  std::vector<std::string> positional;
  std::vector<std::string> options;
};
Operands split_operands(const std::vector<std::string>& argv, const std::set<std::string>& valued);

// An option a command had under another meaning is refused by its old name
// with where it went: `renamed` maps the old spelling to one line ("now
// --input-seed: --seed is the policy's seed in every command").
void refuse_renamed(const std::vector<std::string>& argv, const std::map<std::string, std::string>& renamed);

class Args {
 public:
  // `valued` keys take a value, `flags` do not; anything else is a UsageError.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued, const std::set<std::string>& flags);
  bool flag(const std::string& key) const { return m_flags.count(key) > 0; }
  std::string value(const std::string& key, const std::string& fallback = "") const;
  std::vector<std::string> values(const std::string& key) const;
  double number(const std::string& key, double fallback) const;

 private:
  std::map<std::string, std::vector<std::string>> m_values;
  std::set<std::string> m_flags;
};

}  // namespace kernelblaster
