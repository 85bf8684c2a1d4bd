#include "kb/kb_store.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_lock.h"
#include "kb/write_hook.h"

namespace kernelblaster::kb {

void (*detail::write_chunk_hook)() = nullptr;

namespace {

namespace fs = std::filesystem;

std::string errno_text(int err) { return std::strerror(err); }

void write_all(int fd, const std::string& content, const std::string& tmp) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, std::min<std::size_t>(left, detail::kWriteChunk));
    if (n > 0 && detail::write_chunk_hook) detail::write_chunk_hook();
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw KbError(tmp, "", "cannot write: " + errno_text(errno));
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void fsync_directory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself already happened
  ::fsync(fd);
  ::close(fd);
}

// Temp files are "<name>.tmp.<pid>.<n>"; any left over belong to a writer
// that died, because writers only create them while holding the lock.
std::string temp_prefix(const fs::path& path) { return path.filename().string() + ".tmp."; }

void remove_stale_temps(const fs::path& path) {
  std::error_code ec;
  fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string prefix = temp_prefix(path);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) fs::remove(it->path(), ec);
}

bool exists(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  throw KbError(path, "", "cannot stat: " + errno_text(errno));
}

}  // namespace

KnowledgeBase load_kb(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw KbError(path, "", errno == ENOENT ? "no such file" : "cannot open: " + errno_text(errno));
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw KbError(path, "", "cannot read: " + errno_text(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return parse_kb(text, path);
}

void save_kb(const std::string& path, const KnowledgeBase& kb) {
  static std::atomic<unsigned> counter{0};
  fs::path target(path);
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  std::string content = serialize_kb(kb);
  // Never write what the next load would refuse (an outcome with an empty
  // state id, say): that file would block every later update.
  try {
    parse_kb(content, path);
  } catch (const KbError& e) {
    throw KbError(path, e.key(), "refusing to write an invalid KB: " + e.reason());
  }
  mode_t mode = 0644;
  if (struct stat st; ::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw KbError(tmp, "", "cannot create: " + errno_text(errno));
  try {
    write_all(fd, content, tmp);
    if (::fsync(fd) != 0) throw KbError(tmp, "", "cannot flush: " + errno_text(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw KbError(tmp, "", "cannot close: " + errno_text(errno));
  }
  // rename is atomic: a reader, or a writer killed at any instant, sees the
  // old file or the new one, never a mix.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw KbError(path, "", "cannot replace: " + errno_text(err));
  }
  fsync_directory(target.parent_path());
}

KnowledgeBase load_for_run(const std::string& self_exe, const std::string& user_path) {
  std::string seed_path;
  try {
    seed_path = seed_kb_path(self_exe);
  } catch (const KbError&) {
    // No readable seed KB shipped beside the tool: the user's KB alone.
  }
  if (!seed_path.empty()) return load_layered(seed_path, user_path);
  return std::filesystem::exists(user_path) ? load_kb(user_path) : KnowledgeBase{};
}

KnowledgeBase load_layered(const std::string& seed_path, const std::string& user_path) {
  KnowledgeBase kb = load_kb(seed_path);
  kb.stats.clear();  // statistics come from the user KB only
  kb.transitions.clear();
  if (user_path.empty() || !exists(user_path)) return kb;
  KnowledgeBase user = load_kb(user_path);
  for (State& s : user.states) {
    auto it = std::find_if(kb.states.begin(), kb.states.end(), [&](const State& x) { return x.id == s.id; });
    if (it != kb.states.end())
      *it = std::move(s);
    else
      kb.states.push_back(std::move(s));
  }
  for (Technique& t : user.techniques) {
    auto it = std::find_if(kb.techniques.begin(), kb.techniques.end(), [&](const Technique& x) { return x.id == t.id; });
    if (it != kb.techniques.end())
      *it = std::move(t);
    else
      kb.techniques.push_back(std::move(t));
  }
  kb.stats = std::move(user.stats);
  kb.transitions = std::move(user.transitions);
  return kb;
}

void update_kb(const std::string& path, const std::function<void(KnowledgeBase&)>& change, const KbCaps& caps) {
  fs::path target(path);
  if (!target.parent_path().empty()) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw KbError(path, "", "cannot create its directory: " + ec.message());
  }
  std::optional<FileLock> lock;
  try {
    lock.emplace(path + ".lock");
  } catch (const FileLockError& e) {
    throw KbError(e.path(), "", e.reason());  // refusals of KB files are KbErrors, naming the file
  }
  // Re-read under the lock: whatever another writer saved before we got the
  // lock is in the file now, and our change is applied on top of it.
  KnowledgeBase kb = exists(path) ? load_kb(path) : KnowledgeBase{};
  remove_stale_temps(target);
  change(kb);
  compact(kb, caps);
  save_kb(path, kb);
}

void update_kb(const std::string& path, const std::function<void(KnowledgeBase&)>& change) {
  update_kb(path, change, KbCaps{});
}

void record_outcomes(const std::string& path, const std::vector<Outcome>& outcomes) {
  update_kb(path, [&](KnowledgeBase& kb) {
    for (const Outcome& o : outcomes) record(kb, o);
  });
}

}  // namespace kernelblaster::kb
