// Tunables declared in a kernel source with comment directives:
//
//   // kernelblaster: tunable BLOCK_SIZE 64 128 256 512 1024 technique=block_size_adaptation
//   #ifndef BLOCK_SIZE
//   #define BLOCK_SIZE 256
//   #endif
//   // kernelblaster: constraint BLOCK_SIZE * ITEMS <= 4096
//   // kernelblaster: flags fast_math maxrregcount=32,64 dlcm=cg arch   (or: flags none)
//
// The default of a tunable is its #define value (added to the list when the
// list lacks it); the #define must sit under #ifndef NAME so a candidate can
// override it. technique= is optional (infer_technique).
#pragma once

#include <string>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// Parses every directive of `text`; `file` names it in messages. `arch` is
// the target architecture (for the "arch" flag dimension). Throws SpaceError
// "file:line: reason" for the first malformed directive.
SpaceDecl parse_directives(const std::string& text, const std::string& file, const std::string& arch);

// The value of `#define NAME VALUE` under `#ifndef NAME` in `text`, without a
// trailing comment; empty when there is none. `guarded` (optional) says
// whether an #ifndef NAME precedes the #define.
std::string find_default(const std::string& text, const std::string& name, bool* guarded = nullptr);

// Checks what only the whole declaration shows: unique tunable names,
// constraints that name only tunables. Throws SpaceError.
void validate_space(const SpaceDecl& decl, const std::string& file);

}  // namespace kernelblaster::tuner
