#include "build_step/results_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "common/file_lock.h"
#include "build_step/result_json.h"
#include "common/file_util.h"
#include "common/json_fields.h"

namespace fs = std::filesystem;

namespace kernelblaster::build_step {

namespace {

// A torn or foreign file is a miss, never an error; `why` (when given) says
// which file and what is wrong with it.
std::optional<TunedResult> read_entry(const fs::path& path, const std::string& key, std::string* why = nullptr) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  try {
    TunedResult r = result_from_json(nlohmann::json::parse(read_file(path.string())), path.string());
    if (r.key == key) return r;
    if (why) *why = path.string() + " holds the result of another key";
  } catch (const std::exception& e) {
    if (why) *why = path.string() + ": " + json_parse_reason(e.what());
  }
  return std::nullopt;
}

void touch(const fs::path& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

}  // namespace

std::string ResultsCache::entry_path(const GpuFingerprint& gpu, const std::string& key) const {
  return (fs::path(m_dir) / gpu.id() / (key + ".json")).string();
}

std::string ResultsCache::tuning_dir(const GpuFingerprint& gpu, const std::string& key) const {
  return (fs::path(m_dir) / gpu.id() / "tuning" / key).string();
}

std::optional<TunedResult> ResultsCache::find(const GpuFingerprint& gpu, const std::string& key,
                                              std::string* unreadable) const {
  fs::path path = entry_path(gpu, key);
  auto r = read_entry(path, key, unreadable);
  if (r) {
    touch(path);
    return r;
  }
  return std::nullopt;
}

std::optional<TunedResult> ResultsCache::find_for(const std::string& selector, const std::string& key,
                                                  std::string* unreadable) const {
  std::error_code ec;
  std::optional<TunedResult> best;
  int best_rank = 99;
  for (const auto& dir : fs::directory_iterator(m_dir, ec)) {
    if (!dir.is_directory(ec)) continue;
    GpuFingerprint gpu;
    try {
      gpu = gpu_from_json(nlohmann::json::parse(read_file((dir.path() / "gpu.json").string())));
    } catch (const std::exception& e) {
      // A GPU's directory that cannot say which GPU it is: its entry for
      // this key, if it has one, is named, never taken.
      if (unreadable && fs::exists(dir.path() / (key + ".json"), ec))
        *unreadable = (dir.path() / "gpu.json").string() + ": " + e.what();
      continue;
    }
    int rank = gpu_match_rank(gpu, selector);
    if (rank < 0 || rank >= best_rank) continue;
    fs::path path = dir.path() / (key + ".json");
    if (auto r = read_entry(path, key, unreadable)) {
      touch(path);
      best = r;
      best_rank = rank;
    }
  }
  return best;
}

std::vector<TunedResult> ResultsCache::all_for(const std::string& key) const {
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& dir : fs::directory_iterator(m_dir, ec))
    if (dir.is_directory(ec)) dirs.push_back(dir.path());
  std::sort(dirs.begin(), dirs.end());
  std::vector<TunedResult> out;
  for (const fs::path& dir : dirs)
    if (auto r = read_entry(dir / (key + ".json"), key)) out.push_back(*r);
  return out;
}

std::vector<TunedResult> ResultsCache::all_of_source(const std::string& selector, const std::string& source) const {
  std::error_code ec;
  std::vector<TunedResult> out;
  for (const auto& dir : fs::directory_iterator(m_dir, ec)) {
    if (!dir.is_directory(ec)) continue;
    try {
      if (!gpu_matches(gpu_from_json(nlohmann::json::parse(read_file((dir.path() / "gpu.json").string()))), selector))
        continue;
    } catch (const std::exception&) {
      continue;  // a GPU's directory that cannot say which GPU it is
    }
    for (const auto& file : fs::directory_iterator(dir.path(), ec)) {
      const fs::path& p = file.path();
      if (p.extension() != ".json" || p.filename() == "gpu.json") continue;
      if (auto r = read_entry(p, p.stem().string()); r && r->source == source) out.push_back(*r);
    }
  }
  return out;
}

void ResultsCache::store(const TunedResult& r) {
  fs::path gpu_dir = fs::path(m_dir) / r.gpu.id();
  fs::create_directories(gpu_dir);
  FileLock lock((fs::path(m_dir) / ".lock").string());
  if (!fs::exists(gpu_dir / "gpu.json")) write_file_atomic((gpu_dir / "gpu.json").string(), gpu_to_json(r.gpu).dump(2) + "\n");
  write_file_atomic(entry_path(r.gpu, r.key), result_to_json(r).dump(2) + "\n");
  evict_locked();
}

void ResultsCache::evict_locked() {
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    std::uintmax_t bytes;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& gpu : fs::directory_iterator(m_dir, ec)) {
    if (!gpu.is_directory(ec)) continue;
    for (const auto& it : fs::directory_iterator(gpu.path(), ec)) {
      const fs::path& p = it.path();
      if (it.is_regular_file(ec) && p.extension() == ".json" && p.filename() != "gpu.json")
        entries.push_back({p, it.last_write_time(ec), it.file_size(ec)});
    }
    for (const auto& tuning : fs::directory_iterator(gpu.path() / "tuning", ec)) {
      Entry e{tuning.path(), fs::last_write_time(tuning.path() / "search.json", ec), 0};
      if (ec) e.used = fs::file_time_type::min();  // a state never written: the first to go
      for (auto f = fs::recursive_directory_iterator(tuning.path(), ec); !ec && f != fs::recursive_directory_iterator();
           f.increment(ec))
        if (f->is_regular_file(ec)) e.bytes += f->file_size(ec);
      entries.push_back(std::move(e));
    }
  }
  for (const Entry& e : entries) total += e.bytes;
  if (total <= m_max_bytes) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= m_max_bytes) break;
    if (fs::remove_all(e.path, ec) > 0) total -= e.bytes;
  }
}

std::string ResultsCache::default_dir() {
  if (const char* d = std::getenv("KERNELBLASTER_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "kernelblaster" / "results").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".cache" / "kernelblaster" / "results").string();
}

std::uint64_t ResultsCache::default_max_bytes() {
  std::uint64_t mb = 256;
  if (const char* v = std::getenv("KERNELBLASTER_CACHE_MAX_MB"); v && *v) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 10);
    if (end && *end == '\0' && n > 0) mb = n;
  }
  return mb << 20;
}

}  // namespace kernelblaster::build_step
