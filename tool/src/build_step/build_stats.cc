#include "build_step/build_stats.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/file_lock.h"
#include "common/file_util.h"

namespace fs = std::filesystem;

namespace kernelblaster::build_step {
namespace {

std::string stats_path(const std::string& dir) { return (fs::path(dir) / "stats.json").string(); }
std::string lock_path(const std::string& dir) { return (fs::path(dir) / ".stats.lock").string(); }

std::map<std::string, long long> read_unlocked(const std::string& dir) {
  std::map<std::string, long long> counts;
  if (!fs::exists(stats_path(dir))) return counts;
  try {
    nlohmann::json j = nlohmann::json::parse(read_file(stats_path(dir)));
    for (const auto& [name, n] : j.at("counts").items()) counts[name] = n.get<long long>();
  } catch (const std::exception& x) {
    throw std::runtime_error("unreadable build statistics " + stats_path(dir) + ": " + x.what());
  }
  return counts;
}

void write_unlocked(const std::string& dir, const std::map<std::string, long long>& counts) {
  nlohmann::json j;
  j["kernelblaster_stats"] = 1;
  j["counts"] = counts;
  write_file_atomic(stats_path(dir), j.dump(1) + "\n");
}

}  // namespace

bool count_build_step(const std::string& cache_dir, const BuildReport& report) {
  try {
    fs::create_directories(cache_dir);
    FileLock lock(lock_path(cache_dir));
    std::map<std::string, long long> counts;
    try {
      counts = read_unlocked(cache_dir);
    } catch (const std::exception&) {
      counts.clear();  // a torn or foreign file: start over rather than stop counting
    }
    ++counts[build_cause_name(report.cause)];
    if (report.stale_lockfile) ++counts["stale_lockfile"];
    write_unlocked(cache_dir, counts);
    return true;
  } catch (const std::exception&) {
    return false;  // a count lost; the caller says nothing of it: the step's own line matters
  }
}

std::map<std::string, long long> read_build_stats(const std::string& cache_dir) {
  if (!fs::exists(cache_dir)) return {};
  return read_unlocked(cache_dir);
}

void zero_build_stats(const std::string& cache_dir) {
  if (!fs::exists(cache_dir)) return;
  FileLock lock(lock_path(cache_dir));
  fs::remove(stats_path(cache_dir));
}

std::vector<std::string> build_tree_cache_dirs(const std::string& build_dir) {
  std::vector<std::string> dirs;
  std::error_code ec;
  const fs::path generated = fs::path(build_dir) / "kernelblaster_generated";
  if (!fs::is_directory(generated, ec)) return dirs;
  std::vector<fs::path> records;
  for (const fs::directory_entry& e : fs::directory_iterator(generated, ec))
    if (fs::is_regular_file(e.path() / kCacheDirRecord, ec)) records.push_back(e.path() / kCacheDirRecord);
  std::sort(records.begin(), records.end());
  for (const fs::path& r : records) {
    std::string dir = read_file(r.string());
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  return dirs;
}

}  // namespace kernelblaster::build_step
