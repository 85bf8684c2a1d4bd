#include "tuner/candidate_source.h"

#include <filesystem>

namespace kernelblaster::tuner {

std::string candidate_source(const std::string& original_text, const std::string& original_path,
                             const Configuration& config, const std::vector<std::string>& base_definitions) {
  std::string out;
  for (const Setting& s : config.settings) {
    if (s.flag) continue;
    for (const std::string& d : base_definitions)
      if (d == s.name || d.rfind(s.name + "=", 0) == 0) {
        out += "#undef " + s.name + "\n";
        break;
      }
    out += "#define " + s.name + " " + s.value + "\n";
  }
  out += line_directive(original_path);
  out += original_text;
  return out;
}

std::string line_directive(const std::string& path) {
  std::string escaped;
  for (char c : std::filesystem::absolute(path).lexically_normal().string()) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "#line 1 \"" + escaped + "\"\n";
}

CompileSettings candidate_settings(const CompileSettings& base, const Configuration& config) {
  CompileSettings cs = base;
  for (const std::string& f : config.flags) {
    if (f.rfind("-arch=", 0) == 0) cs.arch = f.substr(6);
    else cs.flags.push_back(f);
  }
  return cs;
}

}  // namespace kernelblaster::tuner
