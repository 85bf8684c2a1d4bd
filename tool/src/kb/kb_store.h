// Reading, validating and updating KB files. Every write is atomic (temp file
// and rename) under an exclusive file lock, and an update re-reads the file
// under the lock, so concurrent writers lose nothing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"

namespace kernelblaster::kb {

// Parses and validates a KB document; `file` is only for messages. Older
// schema versions are migrated. Throws KbError.
KnowledgeBase parse_kb(const std::string& text, const std::string& file);
std::string serialize_kb(const KnowledgeBase& kb);  // pretty JSON, stable order
// Throws KbError (a missing file is an error too).
KnowledgeBase load_kb(const std::string& path);

// The seed KB shipped in data/ (installed next to the tool), found from the
// tool's executable path. Throws KbError.
std::string seed_kb_path(const std::string& self_exe);
// The user's KB: KERNELBLASTER_KB if set, else
// ${XDG_CACHE_HOME:-~/.cache}/kernelblaster/kb.json.
std::string default_user_kb_path();

// Loads the user KB layered over the seed: states and techniques from both
// (the user's win), statistics from the user KB. A missing user KB is not an
// error. Throws KbError for a malformed one.
KnowledgeBase load_layered(const std::string& seed_path, const std::string& user_path);

// What a run reads: the user KB layered over the seed found from the tool's
// path; where no seed is found, the user KB alone (empty when absent).
// Throws KbError for a malformed file.
KnowledgeBase load_for_run(const std::string& self_exe, const std::string& user_path);

// Locks `path`, re-reads it (or starts empty when missing), applies `change`,
// compacts to the size caps, and writes atomically. A malformed existing file
// is refused with KbError and left untouched.
void update_kb(const std::string& path, const std::function<void(KnowledgeBase&)>& change);
// update_kb with explicit size caps (tests use small ones).
void update_kb(const std::string& path, const std::function<void(KnowledgeBase&)>& change, const KbCaps& caps);
// Writes `kb` to `path` atomically (temp file, fsync, rename, fsync of the
// directory), without locking: for new files such as `kb merge --output`.
void save_kb(const std::string& path, const KnowledgeBase& kb);
// update_kb with record() for each outcome.
void record_outcomes(const std::string& path, const std::vector<Outcome>& outcomes);

}  // namespace kernelblaster::kb
