// Tunables found in a source that declares none: integer macros under
// `#ifndef NAME` that shape a kernel launch or a loop's trip count.
//
//   #ifndef THREADS
//   #define THREADS 128
//   #endif
//   ... kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(...)
//
// makes THREADS a tunable with the block sizes 32..1024. A macro is a block
// size when it appears in a launch's block argument (directly, or through a
// `dim3 block(...)` or `int threads = ...` the launch names) or in
// `__launch_bounds__`; a block of two or three dimensions gets the
// hardware's limit as a constraint on their product. A macro that appears in
// a grid argument, a `for` condition or `#pragma unroll` is scaled instead
// (a quarter to four times its default). A warp-size macro (a name with
// WARP, defined as 32) is a fact, not a choice. Macros with a directive, or every
// macro under `// kernelblaster: discover off`, are left alone: directives
// win. Every candidate is still judged against the original, so a macro
// that turns out to be a problem size only costs the evaluations it fails.
#pragma once

#include <string>
#include <vector>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// Threads per block the hardware allows on every architecture the tool targets.
constexpr long long kMaxThreadsPerBlock = 1024;

struct Discovery {
  std::vector<Tunable> tunables;        // origin: "file:line (discovered: <role>)"
  std::vector<Constraint> constraints;  // block-size limits, each holding for the defaults
  std::vector<std::string> summary;     // one phrase per tunable: "THREADS (block size: 32..1024)"
};

// A literal block size, `<<<(n + 255) / 256, 256>>>` or a launch naming
// `const int threads = 256;`, becomes a macro of the tuned copy: the literal
// (and, in the same launch's grid, the literal and literal - 1) is replaced
// by KERNELBLASTER_BLOCK_L<line>, defined to the literal under #ifndef at the top, so
// the copy compiles to what the original does until a candidate overrides
// it. A literal that also sizes __shared__ memory, or is not a multiple of
// 32 within 32..1024, is left alone.
struct PreparedSource {
  std::string text;               // the copy candidates are made from (== the original when nothing was found)
  std::vector<Tunable> tunables;  // one per replaced literal
  std::vector<std::string> summary;
};
// A kernel declared with `__launch_bounds__(N)` (here or in a header the
// source includes, found in `include_dirs`) gets no block above N. A block
// that is a multiple's divisor in the grid (`n / 512` beside a block of
// 256) moves with it: the grid keeps its threads.
PreparedSource prepare_literal_blocks(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                      const std::vector<std::string>& include_dirs = {});

// What `text` offers beyond `declared` (a source's directives and manifest),
// its guarded macros and those of the project headers it includes
// (header_defines.h's project_headers, through `include_dirs`): a
// candidate's #define above the text wins over a header's #ifndef as over
// the source's, so the header stays as it is. A header's macro counts by
// the part it plays in the source's launches.
Discovery discover_tunables(const std::string& text, const std::string& file, const SpaceDecl& declared,
                            const std::vector<std::string>& include_dirs = {});

// Adds the discovery to `decl` (nothing when `decl.discover` is off) and
// returns it, so the caller can say what it found.
Discovery add_discovered_space(SpaceDecl& decl, const std::string& text, const std::string& file,
                               const std::vector<std::string>& include_dirs = {});

}  // namespace kernelblaster::tuner
