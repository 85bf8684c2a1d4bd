// Small file-system helpers with the error handling the tool needs.
#pragma once

#include <string>

namespace kernelblaster {

// Reads a whole file; throws std::runtime_error naming the path on failure.
std::string read_file(const std::string& path);
// Writes a scratch file (no fsync): for data that is worthless after a crash.
void write_file(const std::string& path, const std::string& content);
// Writes through a temporary file in the same directory and renames it over
// `path`, so readers see the old or the new content, never a torn file.
void write_file_atomic(const std::string& path, const std::string& content);
// Creates a fresh directory `<temp dir>/<prefix>-XXXXXX` and returns its path;
// throws std::runtime_error naming the temp dir on failure.
std::string make_work_dir(const std::string& prefix);

}  // namespace kernelblaster
