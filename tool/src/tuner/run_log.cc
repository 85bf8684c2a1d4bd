#include "tuner/run_log.h"

#include <nlohmann/json.hpp>

#include "common/json_fields.h"

namespace kernelblaster::tuner {

namespace {
using nlohmann::json;

// A tunable's group is kept where it has one, so a replay of the log
// searches the groups as the run did, each its own part (search_loop.h).
json tunable_json(const Tunable& t) {
  json j = {{"name", t.name}, {"values", t.values}, {"default", t.default_value}, {"technique", t.technique}};
  if (!t.group.empty()) j["group"] = t.group;
  return j;
}

}  // namespace

json evaluation_to_json(const EvaluationRecord& r) {
  json j = {{"n", r.n},                     {"id", r.id},
          {"settings", r.settings},       {"flags", r.flags},
          {"status", status_name(r.status)}, {"detail", r.detail},
          {"speedup", r.speedup},         {"median_us", r.median_us},
          {"reference_median_us", r.reference_median_us}, {"compile_s", r.compile_s},
          {"eval_s", r.eval_s},           {"duplicate_of", r.duplicate_of},
          {"sass_hash", r.sass_hash},     {"device", r.device},
          {"at_s", r.at_s},               {"accepted", r.accepted}, {"build_wait_s", r.build_wait_s},
          {"slower_kernel", r.slower_kernel}, {"slower_at_a_size", r.slower_at_a_size}};
  // Where its eval_s went (the evaluator's steps, each harness process's).
  if (!r.phases_s.empty()) j["phases_s"] = r.phases_s;
  return j;
}

EvaluationRecord evaluation_from_json(const json& e) {
  EvaluationRecord r;
  r.id = e.at("id").get<std::string>();
  const std::string status = e.at("status").get<std::string>();
  if (!status_from_name(status, &r.status)) throw std::runtime_error("unknown status '" + status + "'");
  read_fields(e, "n", r.n, "settings", r.settings, "flags", r.flags, "detail", r.detail, "speedup", r.speedup,
              "median_us", r.median_us, "reference_median_us", r.reference_median_us, "compile_s", r.compile_s,
              "eval_s", r.eval_s, "duplicate_of", r.duplicate_of, "sass_hash", r.sass_hash, "device", r.device,
              "at_s", r.at_s, "accepted", r.accepted, "build_wait_s", r.build_wait_s, "slower_kernel", r.slower_kernel,
              "slower_at_a_size", r.slower_at_a_size, "phases_s", r.phases_s);
  return r;
}

std::string run_log_to_json(const RunLog& log) {
  json tunables = json::array(), flag_dimensions = json::array(), evaluations = json::array();
  for (const Tunable& t : log.tunables) tunables.push_back(tunable_json(t));
  for (const FlagDimension& f : log.flag_dimensions)
    flag_dimensions.push_back({{"name", f.name}, {"technique", f.technique}, {"values", f.values}});
  for (const EvaluationRecord& r : log.evaluations) evaluations.push_back(evaluation_to_json(r));
  json j = {{"version", log.version},           {"kernel", log.kernel},
            {"source", log.source},             {"state", log.state},
            {"arch", log.arch},                 {"gpu", log.gpu},
            {"date", log.date},                 {"policy", log.policy},
            {"metrics", log.metrics},           {"tunables", tunables},
            {"constraints", log.constraints},   {"flag_dimensions", flag_dimensions},
            {"space_size", log.space_size},     {"space_capped", log.space_capped},
            {"reference_median_us", log.reference_median_us}, {"original_sass_hash", log.original_sass_hash},
            {"best", log.best},                 {"best_speedup", log.best_speedup},
            {"evaluations", evaluations}};
  if (log.synthetic) j["synthetic"] = true;
  if (!log.note.empty()) j["note"] = log.note;
  if (!log.phases_s.empty()) j["phases_s"] = log.phases_s;
  return j.dump(1);
}

RunLog run_log_from_json(const std::string& text, const std::string& file) {
  RunLog log;
  try {
    json j = json::parse(text);
    if (!j.is_object()) throw SpaceError(file + ": a run log is a JSON object");
    log.version = j.value("version", 1);
    if (log.version != 1) throw SpaceError(file + ": run log version " + std::to_string(log.version) + " is not 1");
    read_fields(j, "synthetic", log.synthetic, "note", log.note, "kernel", log.kernel, "source", log.source, "state",
                log.state, "arch", log.arch, "gpu", log.gpu, "date", log.date, "policy", log.policy, "metrics",
                log.metrics);
    for (const json& t : j.value("tunables", json::array())) {
      Tunable tu;
      tu.name = t.at("name").get<std::string>();
      tu.values = t.at("values").get<std::vector<std::string>>();
      tu.default_value = t.at("default").get<std::string>();
      tu.technique = t.value("technique", "");
      tu.group = t.value("group", "");
      tu.origin = file;
      log.tunables.push_back(std::move(tu));
    }
    read_fields(j, "constraints", log.constraints);
    for (const json& f : j.value("flag_dimensions", json::array()))
      log.flag_dimensions.push_back({f.at("name").get<std::string>(), f.value("technique", ""),
                                     f.at("values").get<std::vector<std::string>>()});
    read_fields(j, "space_size", log.space_size, "space_capped", log.space_capped, "reference_median_us",
                log.reference_median_us, "original_sass_hash", log.original_sass_hash, "best", log.best,
                "best_speedup", log.best_speedup, "phases_s", log.phases_s);
    if (!j.contains("evaluations") || !j["evaluations"].is_array())
      throw SpaceError(file + ": a run log needs a list 'evaluations'");
    for (const json& e : j["evaluations"]) log.evaluations.push_back(evaluation_from_json(e));
  } catch (const json::exception& e) {
    throw SpaceError(file + ": malformed run log: " + e.what());
  }
  return log;
}

}  // namespace kernelblaster::tuner
