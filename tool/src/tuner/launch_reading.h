// How launch_tunables.h reads a source without a compiler: its brace blocks
// and functions, the integral constants and plain #defines it holds, each
// launch and the text that decides its shape, kernel templates (here or in
// headers), and the expressions constraints are folded from. Positions are
// offsets into the masked code (code_only, preprocessor lines blanked),
// which keeps the original's offsets.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tuner/launch_tunables.h"
#include "common/source_text.h"

namespace kernelblaster::tuner::reading {

// A brace block of the code: a function body (its opener follows a `)` at
// file scope), or any other block.
struct Block {
  Span span;  // from `{` to its `}`
  bool function = false;
  bool device = false;  // a __global__ or __device__ function
  std::string name;
  // A function's: where its name starts, its parameter list's `(` and `)`,
  // and the text from the statement before it to its name (`__global__ void`).
  std::size_t name_at = 0;
  Span params{0, 0};
  std::string head;
};

// `const int NAME = <literal>;` and its kin: where the literal is.
struct Constant {
  std::string name;
  long long value = 0;
  Span literal{};
  std::size_t at = 0;  // the name's position
  Span scope{};        // where the name is visible after it
  bool device = false;
};

// `#define NAME <integer>` at conditional depth 0, not already guarded.
struct PlainDefine {
  std::string name;
  long long value = 0;
  int line = 0;  // 1-based
};

// One launch: its site, the spans of its template arguments and
// arguments, and the text that decides its shape (the arguments and,
// three names deep, what the names in them were set to in the function).
struct LaunchRead {
  LaunchSite site;
  std::size_t at = 0;
  Span templ{0, 0};
  std::vector<Span> args;
  Span region{0, 0};  // the function body up to the launch
  std::string shape_text;
};

// The body of the kernel (or kernel template) `name` in `code`, and its
// template parameter names in order.
struct KernelText {
  std::string body;
  std::vector<std::string> params;
  std::string signature;  // its parameter list, between the parentheses
};

// Whitespace, line breaks included, off both ends.
std::string trim_all(const std::string& s);
// The position after the last non-space before `e`.
std::size_t skip_space_back(const std::string& code, std::size_t e);

std::vector<Block> blocks_of(const std::string& code);
// The innermost block holding `pos`, or -1 (file scope); with `functions`,
// the innermost function body.
int block_at(const std::vector<Block>& blocks, std::size_t pos, bool functions = false);

// Declarations of integral constants initialised by one integer literal,
// with the block each one is visible in.
std::vector<Constant> literal_constants(const std::string& code, const std::vector<Block>& blocks);
// `#define NAME <integer>` defined once at conditional depth 0; the names
// under `#ifndef` go to `guarded`.
std::vector<PlainDefine> plain_integer_defines(const std::vector<std::string>& lines, std::set<std::string>* guarded);

// The texts of the project headers a source's text reaches
// (common/include_scan.h), its own includes resolved from `dir`.
std::vector<std::string> included_texts(const std::string& text, const std::filesystem::path& dir,
                                        const std::vector<std::string>& include_dirs);

std::vector<LaunchRead> read_launches(const std::string& code, const std::string& text, const std::vector<Block>& blocks);
// The same, each launch given the site find_launch_tunables() made of it
// (its group, tunables and constraints), matched in order and by line.
std::vector<LaunchRead> read_launches(const std::string& code, const std::string& text, const std::vector<Block>& blocks,
                                      const std::vector<LaunchSite>& sites);
// `name = e;`, `T name(e, ...)`, `T name{...}` inside `region`: each e.
std::vector<std::string> settings_in(const std::string& code, Span region, const std::string& name);

bool kernel_text(const std::string& code, const std::string& name, KernelText* out);

// Integer constants the constraints may read but that are not tuned: a
// text's object-like integer #defines and file-scope integral constants.
void add_known_constants(const std::string& text, std::map<std::string, std::string>* known);
// Derived constants of a body (`constexpr uint NUM_WARPS = K10_NUM_THREADS / 32;`).
void add_derived(const std::string& body, std::map<std::string, std::string>* env);
// `expr` with every name replaced from `env` (six rounds deep), C's
// alternative operator words spelled as symbols and integer suffixes
// dropped; "" when a name remains that is not a tunable.
// Longer than kMaxFoldedLength after a round: "" too.
constexpr std::size_t kMaxFoldedLength = 4096;
std::string folded(std::string expr, const std::map<std::string, std::string>& env,
                   const std::set<std::string>& tunables);
// The first argument of every `word(...)` in `body`.
std::vector<std::string> first_arguments(const std::string& body, const std::string& word);
// Where `name` sizes the program's data on the host: named in the
// arguments of an allocation, a copy or a set (malloc, calloc, realloc,
// cudaMalloc, cudaMallocHost, cudaMallocManaged, cudaHostAlloc, cudaMemcpy,
// cudaMemcpyAsync, cudaMemset) or in a `new T[...]`, as "cudaMalloc at line
// 87" (lines of `code`); "" when nowhere. Such a value is the problem's size
// (the data the launches are given), never a choice a candidate may change.
std::string host_data_use(const std::string& code, const std::string& name);
// The most threads a block of kernel `name` may have by its
// `__launch_bounds__` in any of `codes` (its first argument, a literal or a
// name `known` gives: add_known_constants); 0 when none says.
long long launch_bound(const std::vector<const std::string*>& codes, const std::string& name,
                       const std::map<std::string, std::string>& known);
// Bytes of the static `__shared__` arrays of a kernel body, as an expression ("" when unknown).
std::string shared_bytes(const std::string& body);

// The values tried for a default: block sizes 32..1024, or a quarter to four times it.
std::vector<std::string> values_around(long long dflt, bool block_size);
std::string macro_name(const std::string& what, int line);
// Whether the launch's block is `name` alone, in one dimension.
bool bare_block(const std::string& code, const LaunchRead& l, const std::string& name);
// The dimensions of the launch's configuration argument `arg` (0 the grid,
// 1 the block), as written (through one dim3 the launch names).
std::vector<std::string> launch_dimensions(const std::string& code, const LaunchRead& l, std::size_t arg);
std::vector<std::string> block_dimensions(const std::string& code, const LaunchRead& l);
// The arguments the launch passes to the kernel, as written.
std::vector<std::string> call_arguments(const std::string& code, const LaunchRead& l);

}  // namespace kernelblaster::tuner::reading
