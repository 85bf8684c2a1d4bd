#include "kernelbench/source_scan.h"

#include <cctype>

namespace kernelblaster::kernelbench {


std::string mask_comments_and_strings(const std::string& text) {
  std::string out = text;
  const std::size_t n = text.size();
  auto blank = [&](std::size_t i) {
    if (out[i] != '\n') out[i] = ' ';
  };
  std::size_t i = 0;
  while (i < n) {
    char c = text[i];
    char next = i + 1 < n ? text[i + 1] : '\0';
    if (c == '/' && next == '/') {
      while (i < n && text[i] != '\n') blank(i++);
    } else if (c == '/' && next == '*') {
      blank(i++);
      blank(i++);
      while (i < n && !(text[i] == '*' && i + 1 < n && text[i + 1] == '/')) blank(i++);
      for (int k = 0; k < 2 && i < n; ++k) blank(i++);
    } else if (c == '"' || c == '\'') {
      // Raw strings are not expected in these files; escapes are.
      ++i;  // keep the opening quote so `extern "C"` stays recognisable by shape
      while (i < n && text[i] != c && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < n) blank(i++);
        blank(i++);
      }
      if (i < n) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

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
