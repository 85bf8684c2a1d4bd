#include "common/source_text.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include "common/source_lines.h"

namespace kernelblaster {


std::vector<std::size_t> word_positions(const std::string& s, const std::string& word) {
  std::vector<std::size_t> out;
  for (std::size_t p = s.find(word); p != std::string::npos; p = s.find(word, p + 1)) {
    bool left = p == 0 || !is_identifier_char(s[p - 1]);
    bool right = p + word.size() >= s.size() || !is_identifier_char(s[p + word.size()]);
    if (left && right) out.push_back(p);
  }
  return out;
}

bool mentions(const std::string& s, const std::string& word) { return !word_positions(s, word).empty(); }

std::vector<std::string> identifiers(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
      std::size_t j = i;
      while (j < s.size() && is_identifier_char(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && is_identifier_char(s[i])) ++i;  // 256u, 0x1F: a literal, not a name
    } else {
      ++i;
    }
  }
  return out;
}

long long integer_literal(std::string v) {
  v = trim(v);
  while (v.size() >= 2 && v.front() == '(' && v.back() == ')') v = trim(v.substr(1, v.size() - 2));
  while (!v.empty() && std::strchr("uUlL", v.back())) v.pop_back();
  if (v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
    return -1;
  return std::stoll(v);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::size_t matching(const std::string& s, std::size_t open, char o, char c) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> out = split_outside_brackets(s, sep);
  for (std::string& piece : out) piece = trim(piece);
  return out;
}

std::vector<LaunchSpans> launch_arg_spans(const std::string& code) {
  std::vector<LaunchSpans> out;
  for (std::size_t p = code.find("<<<"); p != std::string::npos; p = code.find("<<<", p + 3)) {
    std::size_t e = code.find(">>>", p + 3);
    if (e == std::string::npos) break;
    LaunchSpans l;
    l.at = p;
    int depth = 0;
    std::size_t start = p + 3;
    for (std::size_t i = p + 3; i <= e; ++i) {
      char c = i < e ? code[i] : ',';
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (c == ',' && depth == 0) {
        std::size_t b = start, en = i;
        while (b < en && std::isspace(static_cast<unsigned char>(code[b]))) ++b;
        while (en > b && std::isspace(static_cast<unsigned char>(code[en - 1]))) --en;
        l.args.push_back({b, en});
        start = i + 1;
      }
    }
    out.push_back(l);
  }
  return out;
}

std::string launched_kernel(const std::string& code, std::size_t at) {
  std::size_t e = at;
  while (e > 0 && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
  if (e > 0 && code[e - 1] == '>') {
    int depth = 0;
    while (e > 0) {
      --e;
      if (code[e] == '>') ++depth;
      if (code[e] == '<' && --depth == 0) break;
    }
    while (e > 0 && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
  }
  std::size_t b = e;
  while (b > 0 && is_identifier_char(code[b - 1])) --b;
  return code.substr(b, e - b);
}

bool names_the_warp_size(const std::string& name, long long value) {
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return value == 32 && upper.find("WARP") != std::string::npos;
}

std::string word_before(const std::string& code, std::size_t pos, std::size_t* begin) {
  std::size_t e = std::min(pos, code.size());
  while (e > 0 && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
  std::size_t b = e;
  while (b > 0 && is_identifier_char(code[b - 1])) --b;
  if (begin) *begin = b;
  return code.substr(b, e - b);
}

int line_at(const std::string& text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

int line_as_written(const std::string& text, std::size_t pos, std::string* file) {
  int line = 1;
  std::size_t start = 0;
  while (start < text.size() && start <= pos) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos || end >= pos) break;
    const std::string l = trim(text.substr(start, end - start));
    int next = line + 1;
    if (l.rfind("#line ", 0) == 0) {
      const std::size_t quote = l.find('"');
      const long long n = integer_literal(trim(l.substr(6, quote == std::string::npos ? std::string::npos : quote - 6)));
      if (n > 0) next = static_cast<int>(n);
      if (file && quote != std::string::npos) {
        std::string named;
        for (std::size_t i = quote + 1; i < l.size() && l[i] != '"'; ++i) named += l[i] == '\\' && i + 1 < l.size() ? l[++i] : l[i];
        *file = named;
      }
    }
    line = next;
    start = end + 1;
  }
  return line;
}

std::string without_preprocessor_lines(std::string code) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= code.size(); ++i)
    if (i == code.size() || code[i] == '\n') {
      std::string line = trim(code.substr(start, i - start));
      if (!line.empty() && line[0] == '#') std::fill(code.begin() + start, code.begin() + i, ' ');
      start = i + 1;
    }
  return code;
}

}  // namespace kernelblaster
