// Knobs projects keep in their own headers: a plain integer `#define` in a
// project header the source reaches (`#define k_blockDimX 32` in a
// stencil's header, `#define SHARED_SIZE_LIMIT 1024` in a sort's). A header
// is shared with every other file that includes it, so the tuned copy of
// the source does not edit it: the copy takes the text of every project
// header it includes in the include's place (the source flattened), each
// tuned define under `#ifndef`, so a candidate's `#define` wins wherever the
// header is read. `#line`s lead back to the header and the includer, so
// compiler messages still name the user's files; a `#pragma once` header
// becomes a guarded block, so reading it twice is the no-op it was.
// Project headers are the ones an include resolves to beside its includer
// or in the include directories, not under /usr/ or /opt/; system and
// toolkit includes stay #include lines.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/source_text.h"

namespace kernelblaster::tuner {

// A project header the source reaches, directly or through others.
struct ProjectHeader {
  std::string path;  // absolute
  std::string text;
};

// Every project header `text` (the source at `file`) reaches, in the order
// first reached; `notes` gets what could not be read: a quoted include
// found nowhere, an include directory that does not exist.
std::vector<ProjectHeader> project_headers(const std::string& text, const std::string& file,
                                           const std::vector<std::string>& include_dirs,
                                           std::vector<std::string>* notes);

// The header's lines with a classic include guard around its whole text
// (`#ifndef G` / `#define G` ... `#endif`) blanked, so the defines inside
// it read as the header's own, at no conditional depth.
std::vector<std::string> lines_inside_guard(const std::string& text);

// The source's includes of project headers, each to be replaced by the
// header's text flattened in turn, the defines on `guarded` (header path ->
// 1-based lines) under #ifndef. Empty (with `why` set) where the flattened
// copy would grow past what a candidate should carry.
std::vector<Edit> flattened_includes(const std::string& text, const std::string& file,
                                     const std::vector<std::string>& include_dirs,
                                     const std::map<std::string, std::set<int>>& guarded, std::string* why);

}  // namespace kernelblaster::tuner
