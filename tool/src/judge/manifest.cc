#include "judge/manifest.h"

#include "common/file_util.h"

namespace kernelblaster {
namespace {

// "SHELL:-Xcompiler -fopenmp" is one option group to CMake: its words.
void add_flag(std::vector<std::string>& flags, const std::string& value) {
  static const std::string shell = "SHELL:";
  if (value.rfind(shell, 0) != 0) {
    flags.push_back(value);
    return;
  }
  std::string word;
  for (char c : value.substr(shell.size())) {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) flags.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) flags.push_back(word);
}

Manifest parse_lines(const std::string& text, const std::string& path) {
  Manifest m;
  std::size_t pos = text.find('\n');  // past the header
  int line_no = 1;
  while (pos != std::string::npos && pos + 1 <= text.size()) {
    std::size_t start = pos + 1;
    pos = text.find('\n', start);
    std::string line = text.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    ++line_no;
    if (line.empty()) continue;
    std::size_t space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "target") m.target = value;
    else if (key == "project") m.project = value;
    else if (key == "arch") m.settings.arch = value;
    else if (value.empty() && (key == "I" || key == "D" || key == "F" || key == "L")) continue;
    else if (key == "I") m.settings.include_dirs.push_back(value);
    else if (key == "D") m.settings.definitions.push_back(value);
    else if (key == "F") add_flag(m.settings.flags, value);
    else if (key == "L") {
      // "L <setting> <value>": a setting with no value is left unset.
      std::size_t gap = value.find(' ');
      if (gap != std::string::npos && gap + 1 < value.size()) m.llm.emplace_back(value.substr(0, gap), value.substr(gap + 1));
    } else
      throw ManifestError("manifest " + path + ": line " + std::to_string(line_no) + " starts with '" + key +
                          "', not target, arch, project, I, D, F or L");
  }
  return m;
}

Manifest parse_json(const std::string& text, const std::string& path) {
  Manifest m;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ManifestError("manifest " + path + " is neither valid JSON nor a '" + kManifestHeader +
                        "' file: " + e.what());
  }
  if (!j.is_object()) throw ManifestError("manifest " + path + " must be a JSON object");
  auto strings = [&](const char* key) {
    std::vector<std::string> out;
    if (!j.contains(key)) return out;
    const std::string bad = "manifest " + path + ": '" + key + "' must be a list of strings";
    if (!j[key].is_array()) throw ManifestError(bad);
    for (const auto& v : j[key]) {
      if (!v.is_string()) throw ManifestError(bad);
      if (!v.get<std::string>().empty()) out.push_back(v.get<std::string>());
    }
    return out;
  };
  for (const char* key : {"arch", "target", "project"})
    if (j.contains(key) && !j[key].is_string())
      throw ManifestError("manifest " + path + ": '" + key + "' must be a string");
  if (j.contains("arch")) m.settings.arch = j["arch"].get<std::string>();
  if (j.contains("target")) m.target = j["target"].get<std::string>();
  if (j.contains("project")) m.project = j["project"].get<std::string>();
  m.settings.include_dirs = strings("include_dirs");
  m.settings.definitions = strings("definitions");
  for (const std::string& f : strings("flags")) add_flag(m.settings.flags, f);
  if (j.contains("llm")) {
    const std::string bad = "manifest " + path + ": 'llm' must be an object of strings";
    if (!j["llm"].is_object()) throw ManifestError(bad);
    for (const auto& [name, value] : j["llm"].items()) {
      if (!value.is_string()) throw ManifestError(bad);
      if (!value.get<std::string>().empty()) m.llm.emplace_back(name, value.get<std::string>());
    }
  }
  m.space = std::move(j);
  return m;
}

}  // namespace

Manifest parse_manifest(const std::string& text, const std::string& path) {
  const std::string header = kManifestHeader;
  if (text.compare(0, header.size(), header) == 0 && (text.size() == header.size() || text[header.size()] == '\n'))
    return parse_lines(text, path);
  if (text.rfind("kernelblaster-manifest", 0) == 0)
    throw ManifestError("manifest " + path + " has the header '" + text.substr(0, text.find('\n')) +
                        "'; this tool reads '" + header + "'");
  return parse_json(text, path);
}

Manifest read_manifest(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception& x) {
    throw ManifestError("manifest " + path + " cannot be read: " + x.what());
  }
  return parse_manifest(text, path);
}

}  // namespace kernelblaster
