#include "tuner/search_state.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/json_fields.h"
#include "common/sha256.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {

namespace {

using nlohmann::json;

constexpr int kStateVersion = 1;
constexpr const char* kStateFile = "search.json";

json verdict_json(const LookVerdict& v) {
  return {{"exit_code", v.exit_code},
          {"status", v.status},
          {"reason", v.reason},
          {"speedup", v.speedup},
          {"search_speedup", v.search_speedup},
          {"whole_speedup", v.whole_speedup},
          {"reference_median_us", v.reference_median_us},
          {"best_median_us", v.best_median_us},
          {"config", v.config},
          {"flags", v.flags},
          {"kernel_speedups", v.kernel_speedups},
          {"memcheck", v.memcheck},
          {"slower_at_a_size", v.slower_at_a_size},
          {"other_sizes", v.other_sizes},
          {"launch_paced", v.launch_paced},
          {"shape_guard", v.shape_guard},
          {"edge_check", v.edge_check},
          {"per_launcher", v.per_launcher},
          {"text", v.text}};
}

LookVerdict verdict_from_json(const json& j) {
  LookVerdict v;
  read_fields(j, "exit_code", v.exit_code, "status", v.status, "reason", v.reason, "speedup", v.speedup,
              "search_speedup", v.search_speedup, "whole_speedup", v.whole_speedup, "reference_median_us",
              v.reference_median_us, "best_median_us", v.best_median_us, "config", v.config, "flags", v.flags,
              "kernel_speedups", v.kernel_speedups, "memcheck", v.memcheck, "slower_at_a_size", v.slower_at_a_size,
              "other_sizes", v.other_sizes, "launch_paced", v.launch_paced, "shape_guard", v.shape_guard,
              "edge_check", v.edge_check, "per_launcher", v.per_launcher, "text", v.text);
  return v;
}

}  // namespace

std::optional<SearchState> read_search_state(const std::string& dir, std::string* why) {
  const fs::path path = fs::path(dir) / kStateFile;
  std::string text;
  if (dir.empty() || !read_file_if_present(path.string(), &text)) return std::nullopt;
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("version", 0) != kStateVersion)
      throw std::runtime_error("not a search state of version " + std::to_string(kStateVersion));
    SearchState s;
    read_fields(j, "space", s.space, "builds", s.builds, "seconds", s.seconds, "pace_s", s.pace_s, "state", s.state,
                "metrics", s.metrics, "stop", s.stop, "over", s.over, "look_of", s.look_of);
    for (const json& e : j.at("evaluations")) s.evaluations.push_back(evaluation_from_json(e));
    if (j.contains("look")) s.look = verdict_from_json(j.at("look"));
    return s;
  } catch (const json::parse_error& e) {
    if (why) *why = path.string() + ": " + json_parse_reason(e.what());
  } catch (const std::exception& e) {
    if (why) *why = path.string() + ": " + e.what();
  }
  return std::nullopt;
}

void write_search_state(const std::string& dir, const SearchState& s) {
  json evaluations = json::array();
  for (const EvaluationRecord& r : s.evaluations) evaluations.push_back(evaluation_to_json(r));
  const json j = {{"version", kStateVersion}, {"space", s.space},   {"builds", s.builds},
                  {"seconds", s.seconds},     {"pace_s", s.pace_s}, {"state", s.state},
                  {"metrics", s.metrics},     {"stop", s.stop},     {"over", s.over},
                  {"look_of", s.look_of},     {"look", verdict_json(s.look)}, {"evaluations", evaluations}};
  fs::create_directories(dir);
  write_file_atomic((fs::path(dir) / kStateFile).string(), j.dump(1) + "\n");
}

std::string space_digest(const ConfigSpace& space, const std::string& harness_text) {
  Sha256 h;
  h.field(harness_text);
  h.field(space.original.id);
  for (const auto& [name, value] : space.original.values) h.field(name + "=" + value);
  for (const Configuration& c : space.configs) h.field(c.id);
  return h.hex();
}

std::string look_signature(const std::vector<EvaluationRecord>& evaluations, double min_speedup) {
  std::vector<std::string> ids;
  for (const EvaluationRecord& r : evaluations)
    if (r.accepted && r.keepable() && r.speedup >= min_speedup) ids.push_back(r.id);
  std::sort(ids.begin(), ids.end());
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : "|") + id;
  return out;
}

}  // namespace kernelblaster::tuner
