// Where the seed KB and the user KB live.
#include <cstdlib>
#include <filesystem>
#include <pwd.h>
#include <unistd.h>

#include "kb/kb_store.h"
#include "kernelblaster/build_paths.h"

namespace kernelblaster::kb {
namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

std::string seed_kb_path(const std::string& self_exe) {
  if (std::string forced = env("KERNELBLASTER_SEED_KB"); !forced.empty()) return forced;
  std::error_code ec;
  fs::path exe = fs::weakly_canonical(fs::path(self_exe), ec);
  if (ec) exe = fs::path(self_exe);
  // Installed: <prefix>/bin/kernelblaster next to <prefix>/share/kernelblaster/kb/.
  fs::path installed = exe.parent_path().parent_path() / "share" / "kernelblaster" / "kb" / "seed.json";
  if (!self_exe.empty() && fs::is_regular_file(installed, ec)) return installed.string();
  // In a build tree: the source tree's copy.
  fs::path source = fs::path(KERNELBLASTER_BUILD_SOURCE_DIR) / "data" / "kb" / "seed.json";
  if (fs::is_regular_file(source, ec)) return source.string();
  throw KbError("", "", "cannot find the seed KB (looked for " + installed.string() + " and " + source.string() +
                            "; set KERNELBLASTER_SEED_KB)");
}

std::string default_user_kb_path() {
  if (std::string forced = env("KERNELBLASTER_KB"); !forced.empty()) return forced;
  std::string cache = env("XDG_CACHE_HOME");
  if (cache.empty() || cache[0] != '/') {  // the XDG spec says to ignore relative paths
    std::string home = env("HOME");
    if (home.empty())
      if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) home = pw->pw_dir;
    if (home.empty()) throw KbError("", "", "cannot find a cache directory for the user KB: set KERNELBLASTER_KB or HOME");
    cache = home + "/.cache";
  }
  return cache + "/kernelblaster/kb.json";
}

}  // namespace kernelblaster::kb
