// Line-level reading of a CUDA source, shared by the directive parser,
// tunable discovery and the static checks of written code: trimming,
// preprocessor lines, trailing comments, and a
// copy of the text with comments and literals blanked out.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kernelblaster {

std::string trim(const std::string& s);

// "#  define X 1" → {"define", "X 1"}; not a directive → {"", ""}.
std::pair<std::string, std::string> preprocessor_line(const std::string& raw);

// `s` without a trailing // or /* comment, trimmed.
std::string strip_comment(std::string s);

bool is_identifier(const std::string& s);
// A letter, digit or underscore: a character of a C/C++ identifier or number.
inline bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `text` split at each `sep` outside brackets (a character of `open` opens
// one, the one of `close` closes it). The pieces are as written, untrimmed;
// the last one is there even when empty.
std::vector<std::string> split_outside_brackets(std::string_view text, char sep, std::string_view open = "([{",
                                                std::string_view close = ")]}");

// The text with every comment and the inside of every string and character
// literal replaced by spaces; newlines and all offsets are kept.
std::string code_only(const std::string& text);

}  // namespace kernelblaster
