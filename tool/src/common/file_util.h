// Small file-system helpers with the error handling the tool needs.
#pragma once

#include <string>

namespace kernelblaster {

// Reads a whole file; throws std::runtime_error naming the path on failure.
std::string read_file(const std::string& path);
// Reads a whole file into `out`; false (and `out` untouched) when it cannot.
bool read_file_if_present(const std::string& path, std::string* out);
// Writes a scratch file (no fsync): for data that is worthless after a crash.
void write_file(const std::string& path, const std::string& content);
void write_file(const std::string& path, const char* data, std::size_t size);
// Writes through a temporary file in the same directory and renames it over
// `path`, so readers see the old or the new content, never a torn file.
void write_file_atomic(const std::string& path, const std::string& content);
// Writes `content` to `path` (parents made) only if it differs, atomically;
// true if written. What a build step writes, so unchanged output recompiles nothing.
bool write_if_changed(const std::string& path, const std::string& content);
// The first executable `program` in the directories of PATH, as a path; empty
// when there is none (an empty PATH entry is the current directory).
std::string find_on_path(const std::string& program);
// Creates a fresh directory `<temp dir>/<prefix>-XXXXXX` and returns its path;
// throws std::runtime_error naming the temp dir on failure.
std::string make_work_dir(const std::string& prefix);

// A make_work_dir() directory that is removed, with all it holds, when the
// object goes. A removal that fails is left to the system's temp cleaning:
// the work it held is done either way.
class WorkDir {
 public:
  explicit WorkDir(const std::string& prefix) : m_path(make_work_dir(prefix)) {}
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

// Where the per-GPU lock files live: KERNELBLASTER_LOCK_DIR, else
// /tmp/kernelblaster-locks (one place for eval, gate and tune).
std::string default_lock_dir();

// The current time, UTC, as 2026-11-25T10:12:28Z.
std::string utc_now_iso8601();

}  // namespace kernelblaster
