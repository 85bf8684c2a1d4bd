#include "cli/args.h"

#include <cstdio>

#include <cstdlib>

namespace kernelblaster {

Operands split_operands(const std::vector<std::string>& argv, const std::set<std::string>& valued) {
  Operands p;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() > 1 && a[0] == '-') {
      p.options.push_back(a);
      if (valued.count(a) && i + 1 < argv.size()) p.options.push_back(argv[++i]);
    } else {
      p.positional.push_back(a);
    }
  }
  return p;
}

void refuse_renamed(const std::vector<std::string>& argv, const std::map<std::string, std::string>& renamed) {
  for (const std::string& a : argv) {
    if (a == "--") return;
    const auto it = renamed.find(a.substr(0, a.find('=')));
    if (it != renamed.end()) throw UsageError(it->first + " is " + it->second);
  }
}

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string a = argv[i], v;
    bool inline_value = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      v = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      inline_value = true;
    } else if ((a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0) && a.size() > 2) {
      v = a.substr(2);
      a = a.substr(0, 2);
      inline_value = true;
    }
    if (flags.count(a)) {
      if (inline_value) throw UsageError(a + " takes no value");
      m_flags.insert(a);
    } else if (valued.count(a)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError(a + " needs a value");
        v = argv[++i];
      }
      m_values[a].push_back(v);
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
}

std::string Args::value(const std::string& key, const std::string& fallback) const {
  auto it = m_values.find(key);
  if (it == m_values.end()) return fallback;
  if (it->second.size() > 1) throw UsageError(key + " given more than once");
  return it->second.front();
}

std::vector<std::string> Args::values(const std::string& key) const {
  auto it = m_values.find(key);
  return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

double Args::number(const std::string& key, double fallback) const {
  std::string v = value(key);
  if (v.empty()) return fallback;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (!end || *end != '\0') throw UsageError(key + " needs a number, got '" + v + "'");
  return d;
}

UsageError subcommand_error(const std::vector<std::string>& argv, const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  if (argv.empty() || argv.front().empty() || argv.front()[0] == '-')
    return UsageError("missing subcommand: one of " + list);
  return UsageError("unknown subcommand '" + argv.front() + "': one of " + list);
}

int run_command(const char* name, const char* help, const std::vector<std::string>& argv,
                const std::function<int()>& body) {
  for (const std::string& a : argv) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      std::fputs(help, stdout);
      return 0;
    }
  }
  try {
    return body();
  } catch (const UsageError& x) {
    std::fprintf(stderr, "kernelblaster %s: %s (see --help)\n", name, x.what());
    return 2;
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster %s: %s\n", name, x.what());
    return 2;
  }
}

}  // namespace kernelblaster
