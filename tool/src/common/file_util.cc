#include "common/file_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace kernelblaster {

std::string make_work_dir(const std::string& prefix) {
  std::filesystem::path tmp;
  try {
    tmp = std::filesystem::temp_directory_path();
  } catch (const std::filesystem::filesystem_error& e) {
    const char* env = std::getenv("TMPDIR");
    throw std::runtime_error(std::string("cannot create a work directory: no usable temp directory (TMPDIR=") +
                             (env ? env : "") + "): " + e.code().message());
  }
  std::string tmpl = (tmp / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error("cannot create a work directory in " + tmp.string() + ": " + std::strerror(errno));
  return tmpl;
}

WorkDir::~WorkDir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

bool read_file_if_present(const std::string& path, std::string* out) {
  try {
    *out = read_file(path);
    return true;
  } catch (const std::runtime_error&) {
    return false;  // absent or unreadable: what "if present" means to its callers
  }
}

std::string default_lock_dir() {
  const char* env = std::getenv("KERNELBLASTER_LOCK_DIR");
  return env && *env ? env : "/tmp/kernelblaster-locks";
}

std::string utc_now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string read_file(const std::string& path) {
  // Output dumps run to hundreds of MB: a regular file is read straight into
  // a string of its size (a stream copy grows by doubling and copies again).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::string out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t have = 0;
  char chunk[1 << 14];
  for (;;) {
    const bool into_string = have < out.size();
    char* dst = into_string ? out.data() + have : chunk;
    std::size_t room = into_string ? out.size() - have : sizeof chunk;
    ssize_t n = ::read(fd, dst, room);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw std::runtime_error("cannot read " + path + ": " + std::strerror(err));
    }
    if (n == 0) break;
    if (!into_string) out.append(chunk, static_cast<std::size_t>(n));  // past the size fstat gave (a growing file, a pipe)
    have += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(have);
  return out;
}

void write_file(const std::string& path, const std::string& content) {
  write_file(path, content.data(), content.size());
}

void write_file(const std::string& path, const char* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot flush " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(err));
  }
}

std::string find_on_path(const std::string& program) {
  const char* env = std::getenv("PATH");
  std::istringstream dirs(env ? env : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool write_if_changed(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    try {
      if (read_file(path) == content) return false;
    } catch (const std::exception&) {
      // Unreadable: written afresh below, which reports its own failure.
    }
  }
  if (fs::path parent = fs::path(path).parent_path(); !parent.empty()) fs::create_directories(parent, ec);
  write_file_atomic(path, content);
  return true;
}

}  // namespace kernelblaster
