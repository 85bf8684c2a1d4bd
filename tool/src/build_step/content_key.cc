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

namespace {

std::string digest12(const std::string& text) { return sha256_hex(text).substr(0, 12); }

std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : " ") + s;
  return out.empty() ? "(none)" : out;
}

}  // namespace

std::map<std::string, std::string> key_parts(const KeyInputs& in) {
  std::vector<std::string> headers;
  for (const auto& h : in.header_texts) headers.push_back(sha256_hex(h));
  std::sort(headers.begin(), headers.end());
  std::string nvcc = in.nvcc_version;
  if (const auto release = nvcc.find("release"); release != std::string::npos) nvcc = nvcc.substr(release);
  if (const auto end = nvcc.find('\n'); end != std::string::npos) nvcc = nvcc.substr(0, end);
  return {{"tool version", in.tool_version},
          {"nvcc", nvcc},
          {"architecture", in.arch},
          {"definitions", words(in.definitions)},
          {"flags", words(in.flags)},
          {"source", digest12(in.source_text)},
          {"headers", digest12(words(headers))},
          {"knowledge base", digest12(in.kb_version)},
          {"policy", in.policy_hash.empty() ? "built-in" : in.policy_hash.substr(0, 12)},
          {"LLM", in.rewriter.empty() ? "none" : in.rewriter},
          {"recorded coverage", in.unharnessed.empty() ? "every kernel" : digest12(in.unharnessed)}};
}

std::string key_difference(const std::map<std::string, std::string>& now,
                           const std::map<std::string, std::string>& then) {
  std::string out;
  for (const auto& [name, value] : now) {
    const auto it = then.find(name);
    if (it == then.end() || it->second == value) continue;
    const bool shown = value.size() + it->second.size() <= 80 && name != "source" && name != "headers" &&
                       name != "knowledge base" && name != "recorded coverage";
    out += (out.empty() ? "" : ", ") + name + (shown ? " (" + value + ", was " + it->second + ")" : "");
  }
  return out;
}

int parts_in_common(const std::map<std::string, std::string>& now, const std::map<std::string, std::string>& then) {
  int n = 0;
  for (const auto& [name, value] : now) {
    const auto it = then.find(name);
    n += it != then.end() && it->second == value;
  }
  return n;
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
