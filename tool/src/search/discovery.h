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

#include "search/space_decl.h"

namespace kernelblaster::search {

// Threads per block the hardware allows on every architecture the tool targets.
constexpr long long kMaxThreadsPerBlock = 1024;

struct Discovery {
  std::vector<Tunable> tunables;        // origin: "file:line (discovered: <role>)"
  std::vector<Constraint> constraints;  // block-size limits, each holding for the defaults
  std::vector<std::string> summary;     // one phrase per tunable: "THREADS (block size: 32..1024)"
};

// What `text` offers beyond `declared` (a source's directives and manifest).
Discovery discover_tunables(const std::string& text, const std::string& file, const SpaceDecl& declared);

// Adds the discovery to `decl` (nothing when `decl.discover` is off) and
// returns it, so the caller can say what it found.
Discovery add_discovered_space(SpaceDecl& decl, const std::string& text, const std::string& file);

}  // namespace kernelblaster::search
