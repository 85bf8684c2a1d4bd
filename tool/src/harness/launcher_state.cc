#include "harness/launcher_state.h"

#include <algorithm>
#include <vector>

#include "common/source_lines.h"
#include "common/source_text.h"

namespace kernelblaster::harness {

namespace {

struct Function {
  std::string name;
  std::size_t open = 0, close = 0;  // its body's braces
};

// What the file holds at its own scope (namespaces and extern "C" blocks
// see through): its variables' names and its functions' bodies.
struct FileScope {
  std::vector<std::string> variables;
  std::vector<Function> functions;
};

const char* const kNotAVariable[] = {"typedef", "using",  "extern",    "template",   "struct",     "class",
                                     "enum",    "union",  "namespace", "friend",     "static_assert",
                                     "const",   "constexpr", "__constant__", "__device__", "__shared__",
                                     "__managed__", "operator", "return"};

// The names a file-scope statement declares as variables ("" pieces where
// it declares none): `static float *a = NULL, *b;` declares a and b.
std::vector<std::string> declared_variables(const std::string& statement) {
  for (const char* word : kNotAVariable)
    if (mentions(statement, word)) return {};
  std::vector<std::string> names;
  for (const std::string& piece : split_top(statement, ',')) {
    const std::size_t eq = piece.find('=');
    std::string declarator = piece.substr(0, eq);
    if (declarator.find('(') != std::string::npos) return {};  // a function, or a constructor's call
    declarator = declarator.substr(0, declarator.find('['));
    const std::vector<std::string> ids = identifiers(declarator);
    if (ids.empty() || (names.empty() && ids.size() < 2)) return {};  // the first needs a type before its name
    names.push_back(ids.back());
  }
  return names;
}

// Whether the block opening at `open` is a namespace or an extern "C"
// block: its inside is still the file's scope.
bool see_through(const std::string& code, std::size_t open) {
  const std::size_t start = code.find_last_of(";{}", open == 0 ? 0 : open - 1);
  const std::string head = code.substr(start == std::string::npos ? 0 : start + 1, open - (start == std::string::npos ? 0 : start + 1));
  return mentions(head, "namespace") || (mentions(head, "extern") && head.find('(') == std::string::npos);
}

FileScope read_file_scope(const std::string& code) {
  FileScope out;
  std::vector<bool> transparent;  // per open block
  auto at_file_scope = [&] { return std::all_of(transparent.begin(), transparent.end(), [](bool t) { return t; }); };
  std::size_t statement = 0;
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '{') {
      if (at_file_scope() && !see_through(code, i)) {
        const std::size_t close = matching(code, i, '{', '}');
        const std::size_t before = code.find_last_not_of(" \t\r\n", i == 0 ? 0 : i - 1);
        std::string head = code.substr(statement, i - statement);
        const std::size_t paren = head.find('(');
        if (close != std::string::npos && paren != std::string::npos && before != std::string::npos &&
            head.find('=') == std::string::npos) {
          const std::vector<std::string> ids = identifiers(head.substr(0, paren));
          out.functions.push_back({ids.empty() ? "" : ids.back(), i, close});
        }
        if (close == std::string::npos) break;
        i = close;
        statement = i + 1;
        continue;
      }
      transparent.push_back(true);
      statement = i + 1;
    } else if (c == '}') {
      if (!transparent.empty()) transparent.pop_back();
      statement = i + 1;
    } else if (c == ';') {
      if (at_file_scope())
        for (const std::string& name : declared_variables(code.substr(statement, i - statement)))
          out.variables.push_back(name);
      statement = i + 1;
    }
  }
  return out;
}

// Whether `body` sets `name`: assigns it, or passes its address (an
// allocation's out-parameter).
bool sets(const std::string& body, const std::string& name) {
  for (std::size_t at : word_positions(body, name)) {
    std::size_t after = at + name.size();
    while (after < body.size() && (body[after] == ' ' || body[after] == '\t')) ++after;
    const bool assigned = after < body.size() && body[after] == '=' && (after + 1 >= body.size() || body[after + 1] != '=');
    std::size_t before = at;
    while (before > 0 && (body[before - 1] == ' ' || body[before - 1] == '\t')) --before;
    const bool addressed = before > 0 && body[before - 1] == '&' && (before < 2 || body[before - 2] != '&');
    if (assigned || addressed) return true;
  }
  return false;
}

}  // namespace

std::string state_set_elsewhere(const std::string& text, const Launcher& l) {
  if (l.name_offset == Launcher::npos || l.end_offset == Launcher::npos || l.end_offset > text.size() ||
      l.name_offset >= l.end_offset)
    return "";
  const std::string code = without_preprocessor_lines(code_only(text));
  const FileScope scope = read_file_scope(code);
  const std::string own = code.substr(l.name_offset, l.end_offset - l.name_offset);
  for (const std::string& name : scope.variables) {
    if (!mentions(own, name) || sets(own, name)) continue;  // not read, or set by the launcher itself
    if (std::any_of(l.params.begin(), l.params.end(), [&](const LauncherParam& p) { return p.name == name; }))
      continue;  // a parameter of that name hides it
    for (const Function& f : scope.functions) {
      if (f.open <= l.name_offset && l.name_offset <= f.close) continue;
      if (f.open >= l.name_offset && f.close <= l.end_offset) continue;
      if (sets(code.substr(f.open, f.close - f.open), name))
        return "reads " + name + ", which " + (f.name.empty() ? std::string("another function") : f.name) + " sets";
    }
  }
  return "";
}

}  // namespace kernelblaster::harness
