#include "build_step/tuned_result.h"

#include "common/rewrite_tunables.h"
#include "common/text.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace kernelblaster::build_step {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// "NAME VALUE" of a `#define NAME VALUE` line, or false.
bool parse_define(const std::string& line, std::pair<std::string, std::string>& out) {
  const std::string prefix = "#define ";
  if (line.rfind(prefix, 0) != 0) return false;
  std::string rest = line.substr(prefix.size());
  std::size_t space = rest.find(' ');
  std::string name = rest.substr(0, space);
  if (name.empty() || name.find('(') != std::string::npos) return false;
  out = {name, space == std::string::npos ? "" : rest.substr(space + 1)};
  return true;
}

}  // namespace

std::string line_directive_path(const std::string& path) {
  std::string q = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string render_original(const std::string& original_path, const std::string& original_text) {
  return "#line 1 " + line_directive_path(original_path) + "\n" + original_text;
}

std::string render_tuned(const TunedResult& r, const std::string& original_path, const std::string& original_text) {
  if (!r.improved) return render_original(original_path, original_text);
  if (!r.text.empty()) {
    std::string text = r.text;
    replace_all(text, line_directive_path(kSourcePathToken), line_directive_path(original_path));
    return text;
  }
  std::string out = r.prelude;
  if (out.empty())
    for (const auto& [name, value] : r.defines) out += "#define " + name + (value.empty() ? "" : " " + value) + "\n";
  return out + render_original(original_path, original_text);
}

void absorb_tuned_text(TunedResult& r, const std::string& tuned_text, const std::string& tuned_for_path,
                       const std::string& original_text) {
  r.defines.clear();
  r.prelude.clear();
  r.text.clear();
  const std::string line_marker = "#line 1 " + line_directive_path(tuned_for_path) + "\n";
  std::size_t at = tuned_text.find(line_marker);
  if (at != std::string::npos && tuned_text.compare(at + line_marker.size(), std::string::npos, original_text) == 0) {
    std::vector<std::pair<std::string, std::string>> defines;
    const std::string head_text = tuned_text.substr(0, at);
    std::istringstream head(head_text);
    bool directives_only = true, defines_only = true;
    for (std::string line; std::getline(head, line);) {
      std::pair<std::string, std::string> d;
      if (parse_define(line, d)) {
        defines.push_back(d);
      } else if (line.rfind("#undef ", 0) == 0) {
        defines_only = false;
      } else {
        directives_only = false;
        break;
      }
    }
    if (directives_only) {
      r.defines = std::move(defines);
      if (!defines_only || render_tuned(r, tuned_for_path, original_text) != tuned_text) r.prelude = head_text;
      return;
    }
  }
  r.text = tuned_text;
  replace_all(r.text, line_directive_path(tuned_for_path), line_directive_path(kSourcePathToken));
}

std::string assumptions(const TunedResult& r) {
  const std::string prefix = kRestrictTunablePrefix;
  std::string kernels;
  for (const auto& [name, value] : r.config)
    if (value == "1" && name.rfind(prefix, 0) == 0) kernels += (kernels.empty() ? "" : ", ") + name.substr(prefix.size());
  return kernels.empty() ? "" : "assumes the buffers of " + kernels + " never overlap, as in every recorded launch";
}

std::vector<std::string> settings_text(const TunedResult& r) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name, const std::string& value) {
    if (!(value == "0" && is_rewrite_tunable(name))) out.push_back(name + "=" + value);
  };
  if (!r.defines.empty())
    for (const auto& [name, value] : r.defines) add(name, value);
  else
    for (const auto& [name, value] : r.config) add(name, value);
  return out;
}

std::string describe(const TunedResult& r) {
  std::string out = speedup_text(r.speedup);
  for (const std::string& s : settings_text(r)) out += ", " + s;
  for (const auto& f : r.flags) out += ", " + f;
  if (const std::string a = assumptions(r); !a.empty()) out += " (" + a + ")";
  return out;
}

std::vector<std::string> changed_settings(const TunedResult& r) {
  if (r.original.empty()) return settings_text(r);
  std::vector<std::string> out;
  for (const auto& [name, value] : r.config) {
    auto was = r.original.find(name);
    if (was != r.original.end() && was->second == value) continue;
    if (value == "0" && is_rewrite_tunable(name)) continue;
    out.push_back(name + "=" + value);
  }
  return out;
}

std::string kernels_text(const TunedResult& r) {
  // Within 1% either way is no change the line need name.
  constexpr double kMoved = 0.01;
  std::string out;
  int unchanged = 0;
  for (const auto& [name, speedup] : r.kernels) {
    if (std::abs(speedup - 1.0) <= kMoved) {
      ++unchanged;
      continue;
    }
    out += (out.empty() ? "" : ", ") + name + " " + speedup_text(speedup);
  }
  if (out.empty()) return "";
  if (unchanged > 0)
    out += ", " + std::to_string(unchanged) + (unchanged == 1 ? " other kernel" : " other kernels") + " unchanged";
  return out;
}

std::string describe_change(const TunedResult& r) {
  std::string out = speedup_text(r.speedup);
  for (const std::string& s : changed_settings(r)) out += ", " + s;
  for (const auto& f : r.flags) out += ", " + f;
  if (const std::string k = kernels_text(r); !k.empty()) out += "; " + k;
  if (const std::string a = assumptions(r); !a.empty()) out += " (" + a + ")";
  return out;
}

}  // namespace kernelblaster::build_step
