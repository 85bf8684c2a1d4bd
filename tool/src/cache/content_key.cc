#include "cache/content_key.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "common/sha256.h"

namespace fs = std::filesystem;

namespace kernelblaster::cache {

std::string content_key(const KeyInputs& in) {
  std::vector<std::string> header_hashes;
  for (const auto& h : in.header_texts) header_hashes.push_back(sha256_hex(h));
  std::sort(header_hashes.begin(), header_hashes.end());
  Sha256 h;
  h.field("kernelblaster-content-key-v1");
  h.field(in.tool_version);
  h.field(in.kb_version);
  h.field(in.policy_hash);
  h.field(in.nvcc_version);
  h.field(in.arch);
  h.field(in.source_text);
  h.field(std::to_string(header_hashes.size()));
  for (const auto& s : header_hashes) h.field(s);
  h.field(std::to_string(in.definitions.size()));
  for (const auto& s : in.definitions) h.field(s);
  h.field(std::to_string(in.flags.size()));
  for (const auto& s : in.flags) h.field(s);
  if (!in.rewriter.empty()) {
    h.field("rewriter");
    h.field(in.rewriter);
  }
  return h.hex();
}

std::vector<std::string> scan_includes(const std::string& source, const std::vector<std::string>& include_dirs,
                                       const std::vector<std::string>& skip_prefixes) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  auto skipped = [&](const std::string& path) {
    return std::any_of(skip_prefixes.begin(), skip_prefixes.end(),
                       [&](const std::string& p) { return !p.empty() && path.rfind(p, 0) == 0; });
  };
  auto resolve = [&](const fs::path& dir, const std::string& name, bool quoted) -> std::string {
    std::error_code ec;
    if (quoted) {
      fs::path p = dir / name;
      if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    for (const auto& d : include_dirs) {
      fs::path p = fs::path(d) / name;
      if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    return "";
  };

  std::vector<std::string> headers;
  std::error_code ec;
  std::set<std::string> seen = {fs::weakly_canonical(fs::absolute(source), ec).string()};
  // Breadth first; `seen` ends every cycle, so the walk is bounded by the
  // headers that exist, and the key covers all of them (a cap would let an
  // edit beyond it reuse a stale result).
  std::deque<std::string> pending = {*seen.begin()};
  while (!pending.empty()) {
    std::string file = pending.front();
    pending.pop_front();
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      if (line.find("include") == std::string::npos) continue;
      std::smatch m;
      if (!std::regex_search(line, m, kInclude)) continue;
      std::string found = resolve(fs::path(file).parent_path(), m[2].str(), m[1].str() == "\"");
      if (found.empty() || skipped(found) || !seen.insert(found).second) continue;
      headers.push_back(found);
      pending.push_back(found);
    }
  }
  return headers;
}

std::string make_depfile(const std::string& target, const std::vector<std::string>& deps) {
  auto escape = [](const std::string& p) {
    std::string out;
    for (char c : p) {
      if (c == ' ' || c == '#') out += '\\';
      if (c == '$') out += '$';
      out += c;
    }
    return out;
  };
  std::string out = escape(target) + ":";
  for (const auto& d : deps) out += " \\\n  " + escape(d);
  return out + "\n";
}

}  // namespace kernelblaster::cache
