// Taking the code out of an LLM's reply: fenced blocks with any tag (```cuda,
// ```c++, ~~~, none), several blocks, prose around them, or a bare source.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::rewrite {

struct CodeBlock {
  std::string tag;   // the fence's info string ("cuda", "cpp", ""), lower-cased
  std::string code;  // without the fences
  int first_line = 0;  // 1-based line of the reply where the code starts
  bool closed = true;  // false: the reply ended inside the block
};

// Every fenced block of `reply`, in order. A reply that ends inside a block
// (cut off at max_tokens) gives that block with closed = false.
std::vector<CodeBlock> fenced_blocks(const std::string& reply);

struct Extraction {
  std::string code;  // empty when none was found; `why` says why
  std::string why;   // one line
  int blocks = 0;    // fenced blocks in the reply
};

// The candidate source in `reply`: the last closed block that defines
// `launcher` (its name followed by a parameter list and a body); else the
// only closed block that looks like CUDA; else, with no fences at all, the
// whole reply when it defines `launcher`. A block cut off by the end of the
// reply is never used.
Extraction extract_candidate(const std::string& reply, const std::string& launcher);

// Whether `code` defines a function named `launcher` (not only declares or
// calls it), ignoring comments and literals.
bool defines_function(const std::string& code, const std::string& launcher);

}  // namespace kernelblaster::rewrite
