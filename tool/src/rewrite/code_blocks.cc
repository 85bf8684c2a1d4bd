#include "rewrite/code_blocks.h"

#include <cctype>

#include "common/source_lines.h"

namespace kernelblaster::rewrite {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A fence line: at most three spaces, then three or more ` or ~. Returns the
// fence's character and length, and the info string after it.
bool fence_of(const std::string& line, char* ch, std::size_t* len, std::string* info) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  char c = line[i];
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == c) ++n;
  if (n < 3) return false;
  *ch = c;
  *len = n;
  *info = trim(line.substr(i + n));
  return true;
}


bool looks_like_cuda(const std::string& code) {
  const std::string plain = code_only(code);
  return plain.find("__global__") != std::string::npos || plain.find("<<<") != std::string::npos;
}

}  // namespace

std::vector<CodeBlock> fenced_blocks(const std::string& reply) {
  std::vector<CodeBlock> out;
  bool inside = false;
  char ch = 0;
  std::size_t len = 0;
  CodeBlock cur;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= reply.size()) {
    std::size_t end = reply.find('\n', pos);
    if (end == std::string::npos) end = reply.size();
    std::string line = reply.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_no;
    char c = 0;
    std::size_t n = 0;
    std::string info;
    if (!inside && fence_of(line, &c, &n, &info)) {
      inside = true;
      ch = c;
      len = n;
      cur = CodeBlock{};
      std::size_t space = info.find_first_of(" \t{");
      cur.tag = lower(info.substr(0, space));
      cur.first_line = line_no + 1;
    } else if (inside && fence_of(line, &c, &n, &info) && c == ch && n >= len && info.empty()) {
      inside = false;
      out.push_back(cur);
    } else if (inside) {
      cur.code += line + "\n";
    }
    if (end == reply.size()) break;
    pos = end + 1;
  }
  if (inside) {
    cur.closed = false;
    out.push_back(cur);
  }
  return out;
}

bool defines_function(const std::string& code, const std::string& launcher) {
  if (launcher.empty()) return false;
  const std::string plain = code_only(code);
  for (std::size_t at = plain.find(launcher); at != std::string::npos; at = plain.find(launcher, at + 1)) {
    if (at > 0 && is_identifier_char(plain[at - 1])) continue;
    std::size_t i = at + launcher.size();
    if (i < plain.size() && is_identifier_char(plain[i])) continue;
    while (i < plain.size() && std::isspace(static_cast<unsigned char>(plain[i]))) ++i;
    if (i >= plain.size() || plain[i] != '(') continue;
    // The matching ')', then qualifiers up to '{' (a body) or ';' (a declaration or a call).
    int depth = 0;
    for (; i < plain.size(); ++i) {
      if (plain[i] == '(') ++depth;
      else if (plain[i] == ')' && --depth == 0) break;
    }
    if (i >= plain.size()) return false;
    for (++i; i < plain.size(); ++i) {
      char c = plain[i];
      if (c == '{') return true;
      if (c == ';' || c == ',' || c == ')' || c == '(' || c == '=' || c == '}') break;
    }
  }
  return false;
}

Extraction extract_candidate(const std::string& reply, const std::string& launcher) {
  Extraction e;
  const std::vector<CodeBlock> blocks = fenced_blocks(reply);
  e.blocks = static_cast<int>(blocks.size());
  const CodeBlock* defining = nullptr;
  const CodeBlock* cuda = nullptr;
  int cuda_count = 0;
  bool cut = false;
  for (const CodeBlock& b : blocks) {
    if (!b.closed) {
      cut = true;
      continue;
    }
    if (defines_function(b.code, launcher)) defining = &b;
    if (looks_like_cuda(b.code)) {
      cuda = &b;
      ++cuda_count;
    }
  }
  if (defining) {
    e.code = defining->code;
    return e;
  }
  if (cuda_count == 1) {
    e.code = cuda->code;
    return e;
  }
  if (blocks.empty() && defines_function(reply, launcher)) {
    e.code = reply;
    return e;
  }
  if (cut) e.why = "the reply ends inside a code block (cut off?)";
  else if (blocks.empty()) e.why = "the reply holds no code block and does not define " + launcher;
  else if (cuda_count > 1)
    e.why = std::to_string(cuda_count) + " code blocks look like CUDA and none defines " + launcher;
  else e.why = "no code block of the reply defines " + launcher + " or looks like CUDA";
  return e;
}

}  // namespace kernelblaster::rewrite
