#include "build_step/lockfile.h"

#include <filesystem>
#include <stdexcept>
#include <utility>

#include "common/file_lock.h"
#include "build_step/result_json.h"
#include "common/file_util.h"
#include "common/json_fields.h"

namespace fs = std::filesystem;

namespace kernelblaster::build_step {

Lockfile read_lockfile(const std::string& path) {
  Lockfile lock;
  std::error_code ec;
  if (!fs::exists(path, ec)) return lock;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("lockfile " + path + " is " + json_parse_reason(e.what()));
  }
  if (!j.is_object() || !j.contains("sources") || !j["sources"].is_object())
    throw std::runtime_error("lockfile " + path + " has no \"sources\" object");
  if (j.value("kernelblaster_lockfile", 0) > kLockfileVersion)
    throw std::runtime_error("lockfile " + path + " was written by a newer KernelBlaster");
  for (const auto& [source, per_gpu] : j["sources"].items()) {
    if (!per_gpu.is_object()) throw std::runtime_error("lockfile " + path + ": entry \"" + source + "\" is not an object");
    for (const auto& [gpu_id, entry] : per_gpu.items()) {
      const std::string where = "lockfile " + path + " (" + source + ", " + gpu_id + ")";
      TunedResult r = result_from_json(entry, where);
      // An entry no build can match (no key) or select (no GPU) is no entry.
      if (r.key.empty()) throw std::runtime_error(where + ": the entry has no \"key\"");
      if (r.gpu.empty()) throw std::runtime_error(where + ": the entry names no GPU (\"gpu\": {\"name\": ...})");
      r.source = source;
      lock.sources[source][gpu_id] = std::move(r);
    }
  }
  return lock;
}

std::string serialize_lockfile(const Lockfile& lock) {
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [source, per_gpu] : lock.sources)
    for (const auto& [gpu_id, r] : per_gpu) {
      nlohmann::json e = result_to_json(r);
      e.erase("source");  // the key already says it
      sources[source][gpu_id] = e;
    }
  nlohmann::json j = {{"kernelblaster_lockfile", kLockfileVersion}, {"sources", sources}};
  return j.dump(2) + "\n";
}

void update_lockfile(const std::string& path, const TunedResult& r) {
  FileLock guard(path + ".lock");
  Lockfile lock = read_lockfile(path);
  lock.sources[r.source][r.gpu.id()] = r;
  write_file_atomic(path, serialize_lockfile(lock));
}

const TunedResult& stands(const TunedResult& a, const TunedResult& b, std::string* why) {
  auto pick = [&](bool first, const char* rule) -> const TunedResult& {
    *why = rule;
    return first ? a : b;
  };
  if (a.key != b.key && a.measured_at != b.measured_at)
    return pick(a.measured_at > b.measured_at, "measured later, for another content key");
  if (a.reverified != b.reverified) return pick(a.reverified, "re-verified");
  if (a.evaluations != b.evaluations) return pick(a.evaluations > b.evaluations, "from more evaluations");
  if (a.improved != b.improved || a.speedup != b.speedup)
    return pick(std::make_pair(a.improved, a.speedup) > std::make_pair(b.improved, b.speedup), "faster");
  if (a.measured_at != b.measured_at) return pick(a.measured_at > b.measured_at, "measured later");
  return pick(result_to_json(a).dump() <= result_to_json(b).dump(), "the same in every rule; the first by its JSON");
}

Lockfile merge_lockfiles(const Lockfile& a, const Lockfile& b, std::vector<std::string>* decisions) {
  Lockfile out = a;
  for (const auto& [source, per_gpu] : b.sources)
    for (const auto& [gpu_id, theirs] : per_gpu) {
      auto& slot = out.sources[source];
      auto mine = slot.find(gpu_id);
      if (mine == slot.end()) {
        slot[gpu_id] = theirs;
        continue;
      }
      if (result_to_json(mine->second) == result_to_json(theirs)) continue;
      std::string why;
      const bool mine_stands = &stands(mine->second, theirs, &why) == &mine->second;
      const TunedResult winner = mine_stands ? mine->second : theirs;
      const TunedResult loser = mine_stands ? theirs : mine->second;
      if (decisions)
        decisions->push_back(source + " on " + gpu_id + ": kept the result measured " + winner.measured_at + " (" +
                             describe(winner) + ") over the one measured " + loser.measured_at + " (" + describe(loser) +
                             "): " + why);
      mine->second = winner;
    }
  return out;
}

std::optional<TunedResult> select_entry(const Lockfile& lock, const std::string& source, const std::string& selector) {
  auto it = lock.sources.find(source);
  if (it == lock.sources.end()) return std::nullopt;
  std::optional<TunedResult> best;
  int best_rank = 99;
  for (const auto& [gpu_id, r] : it->second) {
    int rank = selector == gpu_id ? 0 : gpu_match_rank(r.gpu, selector);
    if (rank >= 0 && rank < best_rank) {
      best = r;
      best_rank = rank;
    }
  }
  return best;
}

std::string lockfile_fragment_path(const std::string& lockfile_path, const std::string& gpu_id) {
  const fs::path lock(lockfile_path);
  return (lock.parent_path() / (lock.stem().string() + ".d") / (gpu_id + ".json")).string();
}

std::string lockfile_source_name(const std::string& lockfile_path, const std::string& source) {
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::absolute(lockfile_path), ec).parent_path();
  fs::path src = fs::weakly_canonical(fs::absolute(source), ec);
  fs::path rel = src.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") return src.generic_string();
  return rel.generic_string();
}

}  // namespace kernelblaster::build_step
