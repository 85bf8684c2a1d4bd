// The choices real kernels are written with, found where their authors put
// them and tied to the launch sites they shape (no directive needed):
//
//   - an object-like integer `#define` that a kernel or a launch reads and
//     that is not already under `#ifndef` (`#define TILE_DIM 32`): the copy
//     puts it under `#ifndef` in place, a `#line` keeping the lines; one in
//     a project header the source includes itself, the copy takes that
//     header's text in its include's place with the define guarded
//     (header_defines.h);
//   - an integral `const`/`constexpr` variable initialised by a literal, a
//     host function's local or at namespace scope, whose name flows into a
//     launch (template arguments, grid, block, shared bytes, directly or
//     through the `dim3`s and variables the launch names):
//     `const uint K10_BM = 128;` becomes `const uint K10_BM = KERNELBLASTER_K10_BM_L350;`;
//     one declared above the branches it shapes launches in, and read only
//     inside them, is declared again at each branch's top instead (one
//     tunable per branch, the original left as written);
//   - an integer literal written as a launched kernel's template argument,
//     with the equal literals of the same launch's grid and block
//     (`k<32><<<dim3(CEIL_DIV(M, 32)), dim3(32 * 32)>>>`), so the launch
//     stays consistent: one macro for all of them.
//
// Every launch site gets its own set (a site is a `<<<` in a host function);
// sites that share a tunable form one group, and the space searched is the
// union of the groups' products (one group changed at a time), so twelve
// launchers of nine tunables each are twelve small spaces, not one product.
// Constraints come from the code itself: `static_assert`s and `assert`s that
// fold to a constant once the tunables have values (in the host function, at
// namespace scope, and in the launched kernel template, its parameters
// replaced by the launch's arguments), the block's thread limits, and the
// kernel's static shared memory (48 KiB). Types are never tuned; the
// original's values are always in the space. A constraint the text cannot
// state (a shape-dependent `assert`) is left to the candidate's run. A value
// the host sizes its data with (an allocation, a copy, `new[]`), itself or
// through a constant or macro defined from it, is the problem's size and
// never tuned; the notes say so.
#pragma once

#include <string>
#include <vector>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// What a kernel may declare as static shared memory on every architecture
// the tool targets without opting in to more.
constexpr long long kMaxStaticSharedBytes = 48 * 1024;

struct LaunchSite {
  int line = 0;                          // of the launch's `<<<`
  std::string function;                  // the host function around it ("" at namespace scope)
  std::string kernel;                    // the name before `<<<`
  std::string group;                     // the group of sites that share tunables
  std::vector<std::string> tunables;     // the macros that shape it
  std::vector<std::string> constraints;  // the texts of its constraints
};

struct FoundTunable {
  Tunable tunable;         // name: the macro a candidate sets; group set
  std::string kind;        // "define", "constant", "template argument"
  std::string written_as;  // the source's name, or the literal
  int line = 0;            // in the source, or in `header`
  std::string header;      // the project header a define is in (header_defines.h); "" the source
};

struct LaunchTunables {
  std::string text;  // the copy the candidates are made from (== the original when nothing was found)
  std::vector<FoundTunable> tunables;
  std::vector<LaunchSite> sites;
  std::vector<Constraint> constraints;  // each holds for the defaults
  std::vector<std::string> notes;       // what was read and left alone, and why
};

// `include_dirs` are searched (after the source's own directory) for the
// headers that define the launched kernel templates and the constants the
// constraints read. Names `declared` (directives, manifest) are left alone.
LaunchTunables find_launch_tunables(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                    const std::vector<std::string>& include_dirs);

// Adds the found tunables and constraints to `decl` (nothing when its
// discovery is off) and returns what was found.
LaunchTunables add_launch_tunables(SpaceDecl& decl, const std::string& text, const std::string& file,
                                   const std::vector<std::string>& include_dirs);

}  // namespace kernelblaster::tuner
