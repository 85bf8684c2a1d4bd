#include "kernelbench/source_scan.h"

#include <cctype>

namespace kernelblaster::kernelbench {

std::vector<std::size_t> find_identifier(const std::string& masked, const std::string& word) {
  std::vector<std::size_t> hits;
  if (word.empty()) return hits;
  for (std::size_t p = masked.find(word); p != std::string::npos; p = masked.find(word, p + 1)) {
    bool left_ok = p == 0 || !is_identifier_char(masked[p - 1]);
    std::size_t end = p + word.size();
    bool right_ok = end >= masked.size() || !is_identifier_char(masked[end]);
    if (left_ok && right_ok) hits.push_back(p);
  }
  return hits;
}

std::size_t matching_close(const std::string& masked, std::size_t open) {
  if (open >= masked.size()) return std::string::npos;
  char o = masked[open];
  char c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '\0';
  if (!c) return std::string::npos;
  int depth = 0;
  for (std::size_t i = open; i < masked.size(); ++i) {
    if (masked[i] == o) ++depth;
    if (masked[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

std::size_t skip_space(const std::string& masked, std::size_t pos) {
  while (pos < masked.size() && std::isspace(static_cast<unsigned char>(masked[pos]))) ++pos;
  return pos < masked.size() ? pos : std::string::npos;
}

std::string collapse_space(const std::string& text) {
  std::string out;
  bool pending = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      pending = !out.empty();
      continue;
    }
    if (pending) out += ' ';
    pending = false;
    out += c;
  }
  return out;
}

}  // namespace kernelblaster::kernelbench
