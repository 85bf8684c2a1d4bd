#include "tuner/directives.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "tuner/flag_space.h"
#include "common/source_lines.h"

namespace kernelblaster::tuner {
namespace {

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::string find_default(const std::string& text, const std::string& name, bool* guarded) {
  std::istringstream in(text);
  bool seen_ifndef = false;
  for (std::string line; std::getline(in, line);) {
    auto [directive, rest] = preprocessor_line(line);
    if (directive == "ifndef" && strip_comment(rest) == name) seen_ifndef = true;
    if (directive != "define") continue;
    std::string body = rest;
    std::size_t sp = body.find_first_of(" \t");
    std::string macro = sp == std::string::npos ? body : body.substr(0, sp);
    if (macro != name) continue;
    if (guarded) *guarded = seen_ifndef;
    return sp == std::string::npos ? "" : strip_comment(body.substr(sp));
  }
  if (guarded) *guarded = false;
  return "";
}

namespace {

// `// kernelblaster: tunable NAME VALUE... [technique=ID]` at `where`, its
// default read from the source's guarded #define.
Tunable parse_tunable(const std::vector<std::string>& words, const std::string& text, const std::string& where) {
  Tunable tu;
  tu.origin = where;
  if (words.size() < 2) throw SpaceError(where + ": tunable needs a macro name and values");
  tu.name = words[1];
  if (!is_identifier(tu.name)) throw SpaceError(where + ": '" + tu.name + "' is not a macro name");
  for (std::size_t i = 2; i < words.size(); ++i) {
    if (words[i].rfind("technique=", 0) == 0) {
      tu.technique = words[i].substr(10);
      if (!is_identifier(tu.technique)) throw SpaceError(where + ": technique= needs a KB technique id");
      continue;
    }
    if (std::find(tu.values.begin(), tu.values.end(), words[i]) != tu.values.end())
      throw SpaceError(where + ": value '" + words[i] + "' of " + tu.name + " is listed twice");
    tu.values.push_back(words[i]);
  }
  if (tu.values.empty()) throw SpaceError(where + ": tunable " + tu.name + " lists no values");
  bool guarded = false;
  tu.default_value = find_default(text, tu.name, &guarded);
  if (tu.default_value.empty())
    throw SpaceError(where + ": tunable " + tu.name + " has no '#define " + tu.name + " VALUE' in the source");
  if (!guarded)
    throw SpaceError(where + ": the #define of " + tu.name + " must sit under '#ifndef " + tu.name +
                     "' so candidates can override it");
  if (std::find(tu.values.begin(), tu.values.end(), tu.default_value) == tu.values.end())
    tu.values.insert(tu.values.begin(), tu.default_value);
  if (tu.technique.empty()) tu.technique = infer_technique(tu.name);
  return tu;
}

}  // namespace

SpaceDecl parse_directives(const std::string& text, const std::string& file, const std::string& arch) {
  SpaceDecl decl;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    std::string where = file + ":" + std::to_string(line_no);
    std::string t = trim(line);
    if (t.rfind("//", 0) != 0) continue;
    t = trim(t.substr(2));
    if (t.rfind("kernelblaster:", 0) != 0) continue;
    t = trim(t.substr(std::string("kernelblaster:").size()));
    std::vector<std::string> words = split_words(t);
    if (words.empty()) throw SpaceError(where + ": empty kernelblaster directive");
    const std::string& kind = words[0];
    if (kind == "tunable") {
      decl.tunables.push_back(parse_tunable(words, text, where));
    } else if (kind == "constraint") {
      std::string expr = trim(t.substr(std::string("constraint").size()));
      try {
        decl.constraints.emplace_back(expr);
      } catch (const ConstraintError& e) {
        throw SpaceError(where + ": constraint '" + expr + "': " + e.what());
      }
    } else if (kind == "flags") {
      if (decl.flags_declared) throw SpaceError(where + ": a second flags directive");
      decl.flags_declared = true;
      if (words.size() == 2 && words[1] == "none") continue;
      if (words.size() < 2) throw SpaceError(where + ": flags needs dimensions (fast_math, maxrregcount=.., dlcm=.., arch) or none");
      for (std::size_t i = 1; i < words.size(); ++i) {
        std::string name = words[i], list;
        if (std::size_t eq = name.find('='); eq != std::string::npos) {
          list = name.substr(eq + 1);
          name = name.substr(0, eq);
        }
        std::vector<std::string> values;
        std::istringstream vs(list);
        for (std::string v; std::getline(vs, v, ',');)
          if (!v.empty()) values.push_back(v);
        try {
          FlagDimension d = flag_dimension(name, values, arch);
          if (d.values.size() > 1) decl.flags.push_back(std::move(d));
        } catch (const SpaceError& e) {
          throw SpaceError(where + ": " + e.what());
        }
      }
    } else if (kind == "discover") {
      if (words.size() != 2 || (words[1] != "off" && words[1] != "on"))
        throw SpaceError(where + ": discover takes 'on' or 'off'");
      decl.discover = words[1] == "on";
    } else {
      throw SpaceError(where + ": unknown kernelblaster directive '" + kind +
                       "' (known: tunable, constraint, flags, discover)");
    }
  }
  validate_space(decl, file);
  return decl;
}

void validate_space(const SpaceDecl& decl, const std::string& file) {
  std::set<std::string> names;
  for (const Tunable& t : decl.tunables)
    if (!names.insert(t.name).second) throw SpaceError(t.origin + ": tunable " + t.name + " is declared twice");
  for (const Constraint& c : decl.constraints)
    for (const std::string& n : c.names())
      if (!names.count(n))
        throw SpaceError(file + ": constraint '" + c.text() + "' names '" + n + "', which is not a tunable");
}

}  // namespace kernelblaster::tuner
