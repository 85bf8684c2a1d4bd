#include "search/run_log.h"

#include <nlohmann/json.hpp>

namespace kernelblaster::search {

namespace {
using nlohmann::json;

json tunable_json(const Tunable& t) {
  return {{"name", t.name}, {"values", t.values}, {"default", t.default_value}, {"technique", t.technique}};
}
}  // namespace

std::string run_log_to_json(const RunLog& log) {
  json j;
  j["version"] = log.version;
  if (log.synthetic) j["synthetic"] = true;
  if (!log.note.empty()) j["note"] = log.note;
  j["kernel"] = log.kernel;
  j["source"] = log.source;
  j["state"] = log.state;
  j["arch"] = log.arch;
  j["gpu"] = log.gpu;
  j["date"] = log.date;
  j["policy"] = log.policy;
  j["metrics"] = log.metrics;
  j["tunables"] = json::array();
  for (const Tunable& t : log.tunables) j["tunables"].push_back(tunable_json(t));
  j["constraints"] = log.constraints;
  j["flag_dimensions"] = json::array();
  for (const FlagDimension& f : log.flag_dimensions)
    j["flag_dimensions"].push_back({{"name", f.name}, {"technique", f.technique}, {"values", f.values}});
  j["space_size"] = log.space_size;
  j["space_capped"] = log.space_capped;
  j["reference_median_us"] = log.reference_median_us;
  j["original_sass_hash"] = log.original_sass_hash;
  j["best"] = log.best;
  j["best_speedup"] = log.best_speedup;
  if (!log.phases_s.empty()) j["phases_s"] = log.phases_s;
  j["evaluations"] = json::array();
  for (const EvaluationRecord& r : log.evaluations) {
    json e = {{"n", r.n},
              {"id", r.id},
              {"settings", r.settings},
              {"flags", r.flags},
              {"status", status_name(r.status)},
              {"detail", r.detail},
              {"speedup", r.speedup},
              {"median_us", r.median_us},
              {"reference_median_us", r.reference_median_us},
              {"compile_s", r.compile_s},
              {"eval_s", r.eval_s},
              {"duplicate_of", r.duplicate_of},
              {"sass_hash", r.sass_hash},
              {"device", r.device},
              {"at_s", r.at_s},
              {"accepted", r.accepted}};
    j["evaluations"].push_back(std::move(e));
  }
  return j.dump(1);
}

RunLog run_log_from_json(const std::string& text, const std::string& file) {
  RunLog log;
  try {
    json j = json::parse(text);
    if (!j.is_object()) throw SpaceError(file + ": a run log is a JSON object");
    log.version = j.value("version", 1);
    if (log.version != 1) throw SpaceError(file + ": run log version " + std::to_string(log.version) + " is not 1");
    log.synthetic = j.value("synthetic", false);
    log.note = j.value("note", "");
    log.kernel = j.value("kernel", "");
    log.source = j.value("source", "");
    log.state = j.value("state", "unclassified");
    log.arch = j.value("arch", "");
    log.gpu = j.value("gpu", "");
    log.date = j.value("date", "");
    log.policy = j.value("policy", "");
    log.metrics = j.value("metrics", std::map<std::string, double>{});
    for (const json& t : j.value("tunables", json::array())) {
      Tunable tu;
      tu.name = t.at("name").get<std::string>();
      tu.values = t.at("values").get<std::vector<std::string>>();
      tu.default_value = t.at("default").get<std::string>();
      tu.technique = t.value("technique", "");
      tu.origin = file;
      log.tunables.push_back(std::move(tu));
    }
    log.constraints = j.value("constraints", std::vector<std::string>{});
    for (const json& f : j.value("flag_dimensions", json::array()))
      log.flag_dimensions.push_back({f.at("name").get<std::string>(), f.value("technique", ""),
                                     f.at("values").get<std::vector<std::string>>()});
    log.space_size = j.value("space_size", std::size_t{0});
    log.space_capped = j.value("space_capped", false);
    log.reference_median_us = j.value("reference_median_us", 0.0);
    log.original_sass_hash = j.value("original_sass_hash", "");
    log.best = j.value("best", "");
    log.best_speedup = j.value("best_speedup", 0.0);
    log.phases_s = j.value("phases_s", std::map<std::string, double>{});
    if (!j.contains("evaluations") || !j["evaluations"].is_array())
      throw SpaceError(file + ": a run log needs a list 'evaluations'");
    for (const json& e : j["evaluations"]) {
      EvaluationRecord r;
      r.n = e.value("n", 0);
      r.id = e.at("id").get<std::string>();
      r.settings = e.value("settings", std::map<std::string, std::string>{});
      r.flags = e.value("flags", std::vector<std::string>{});
      const std::string status = e.at("status").get<std::string>();
      if (!status_from_name(status, &r.status)) throw std::runtime_error("unknown status '" + status + "'");
      r.detail = e.value("detail", "");
      r.speedup = e.value("speedup", 0.0);
      r.median_us = e.value("median_us", 0.0);
      r.reference_median_us = e.value("reference_median_us", 0.0);
      r.compile_s = e.value("compile_s", 0.0);
      r.eval_s = e.value("eval_s", 0.0);
      r.duplicate_of = e.value("duplicate_of", "");
      r.sass_hash = e.value("sass_hash", "");
      r.device = e.value("device", -1);
      r.at_s = e.value("at_s", 0.0);
      r.accepted = e.value("accepted", false);
      log.evaluations.push_back(std::move(r));
    }
  } catch (const json::exception& e) {
    throw SpaceError(file + ": malformed run log: " + e.what());
  }
  return log;
}

}  // namespace kernelblaster::search
