#include "build_step/content_key.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "common/sha256.h"

namespace fs = std::filesystem;

namespace kernelblaster::build_step {

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
  if (!in.unharnessed.empty()) {
    h.field("unharnessed");
    h.field(in.unharnessed);
  }
  return h.hex();
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

}  // namespace kernelblaster::build_step
