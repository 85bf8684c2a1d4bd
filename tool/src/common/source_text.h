// Reading CUDA source text without a compiler: whole words, integer
// literals, bracket pairs, launches and where they are. The search's
// discovery and launch sites' tunables, and the launcher scan's reading of
// a launcher's own launches, read sources with these; every position is an offset into the text given, and
// the masked code (code_only, preprocessor lines blanked) keeps the
// original's offsets, so a span found in it edits the original.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kernelblaster {

struct Span {
  std::size_t begin, end;  // [begin, end) in the text
};

// A replacement of the text at `span`.
struct Edit {
  Span span;
  std::string with;
};

// Whole-word occurrences of `word` in `s`.
std::vector<std::size_t> word_positions(const std::string& s, const std::string& word);
bool mentions(const std::string& s, const std::string& word);

// The identifiers of `s` in order (numbers such as 256u or 0x1F skipped).
std::vector<std::string> identifiers(const std::string& s);

// "256", "256u", "(256)" → 256; anything else → -1.
long long integer_literal(std::string v);

std::vector<std::string> lines_of(const std::string& text);

// The position of the bracket closing the one at `open`; npos when unbalanced.
std::size_t matching(const std::string& s, std::size_t open, char o, char c);

// Splits at `sep` outside (), [] and {} (not <>), trimmed.
std::vector<std::string> split_top(const std::string& s, char sep);

// Every launch: where its "<<<" is, and its arguments as spans of the text.
struct LaunchSpans {
  std::size_t at = 0;
  std::vector<Span> args;
};
std::vector<LaunchSpans> launch_arg_spans(const std::string& code);

// The kernel a launch calls: the name before its "<<<", template arguments skipped.
std::string launched_kernel(const std::string& code, std::size_t at);

// WARP_SIZE 32, `const int warp_size = 32` and their kin: facts of the
// hardware, not choices (a name with "warp" in any case, valued 32).
bool names_the_warp_size(const std::string& name, long long value);

// The identifier that ends just before `pos`, white space (line breaks
// too) skipped; "" when something else comes first. `begin`, when given,
// gets where it starts.
std::string word_before(const std::string& code, std::size_t pos, std::size_t* begin = nullptr);

// The 1-based line of offset `pos`.
int line_at(const std::string& text, std::size_t pos);
// The line `pos` is on as a compiler numbers it: the `#line N "file"`
// directives before it count (a tuned copy keeps the user's numbering);
// `file` (when given) gets the file the last one named, "" before any.
int line_as_written(const std::string& text, std::size_t pos, std::string* file = nullptr);

// Preprocessor lines blanked (offsets kept): they are not code.
std::string without_preprocessor_lines(std::string code);

}  // namespace kernelblaster
