#include "common/source_lines.h"

#include <algorithm>
#include <cctype>

namespace kernelblaster {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::pair<std::string, std::string> preprocessor_line(const std::string& raw) {
  std::string line = trim(raw);
  if (line.empty() || line[0] != '#') return {"", ""};
  line = trim(line.substr(1));
  std::size_t sp = line.find_first_of(" \t");
  if (sp == std::string::npos) return {line, ""};
  return {line.substr(0, sp), trim(line.substr(sp))};
}

std::string strip_comment(std::string s) {
  for (const char* c : {"//", "/*"})
    if (std::size_t p = s.find(c); p != std::string::npos) s = s.substr(0, p);
  return trim(s);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

std::vector<std::string> split_outside_brackets(std::string_view text, char sep, std::string_view open,
                                                std::string_view close) {
  std::vector<std::string> pieces(1);
  int depth = 0;
  for (char c : text) {
    if (open.find(c) != std::string_view::npos) ++depth;
    if (close.find(c) != std::string_view::npos) --depth;
    if (c == sep && depth == 0) pieces.emplace_back();
    else pieces.back() += c;
  }
  return pieces;
}

std::string code_only(const std::string& text) {
  std::string out = text;
  enum class In { code, line_comment, block_comment, string, character } state = In::code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case In::code:
        if (c == '/' && next == '/') state = In::line_comment;
        else if (c == '/' && next == '*') state = In::block_comment;
        else if (c == '"') state = In::string;
        else if (c == '\'') state = In::character;
        else continue;
        if (state == In::line_comment || state == In::block_comment) {
          out[i] = out[i + 1] = ' ';
          ++i;
        }
        continue;
      case In::line_comment:
        if (c == '\n') state = In::code;
        else out[i] = ' ';
        continue;
      case In::block_comment:
        if (c == '*' && next == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = In::code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        continue;
      case In::string:
      case In::character:
        if (c == '\\' && next != '\0') {
          out[i] = ' ';
          if (next != '\n') out[i + 1] = ' ';
          ++i;
        } else if ((state == In::string && c == '"') || (state == In::character && c == '\'') || c == '\n') {
          state = In::code;
        } else {
          out[i] = ' ';
        }
        continue;
    }
  }
  return out;
}

}  // namespace kernelblaster
