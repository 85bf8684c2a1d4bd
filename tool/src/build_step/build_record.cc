#include "build_step/build_record.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "build_step/result_json.h"
#include "common/file_util.h"
#include "common/json_fields.h"

namespace kernelblaster::build_step {

namespace fs = std::filesystem;

namespace {

std::string absolute(const std::string& path) {
  return path.empty() ? "" : fs::absolute(path).lexically_normal().string();
}

}  // namespace

std::string build_record_text(const BuildRequest& req, const BuildReport& rep) {
  nlohmann::json j = {{"kernelblaster_build_step", kBuildRecordVersion},
                      {"target", req.target},
                      {"source", absolute(req.source)},
                      {"out", absolute(req.out)},
                      {"action", build_action_name(rep.action)},
                      {"cause", build_cause_name(rep.cause)},
                      {"origin", result_origin_name(rep.origin)},
                      {"key", rep.key},
                      {"gpu", rep.selector},
                      {"line", rep.line},
                      {"decided_at", utc_now_iso8601()},
                      {"lockfile", absolute(req.lockfile)},
                      {"cache_dir", absolute(req.cache_dir)},
                      {"stale_lockfile", rep.stale_lockfile},
                      {"remote", rep.remote},
                      {"refused_entry", rep.refused_entry}};
  if (rep.result) j["result"] = result_to_json(*rep.result);
  return j.dump(2) + "\n";
}

std::optional<BuildRecord> parse_build_record(const std::string& text, const std::string& where, std::string* why) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || !j.contains("kernelblaster_build_step")) {
      *why = where + ": not a build step's record (an older KernelBlaster's stamp: build again)";
      return std::nullopt;
    }
    BuildRecord r;
    read_fields(j, "target", r.target, "source", r.source, "out", r.out);
    if (!build_cause_from_name(j.value("cause", ""), &r.cause)) {
      *why = where + ": unknown cause '" + j.value("cause", "") + "'";
      return std::nullopt;
    }
    if (!build_action_from_name(j.value("action", ""), &r.action) ||
        !result_origin_from_name(j.value("origin", ""), &r.origin)) {
      *why = where + ": unknown action '" + j.value("action", "") + "' or origin '" + j.value("origin", "") + "'";
      return std::nullopt;
    }
    read_fields(j, "key", r.key, "gpu", r.selector, "line", r.line, "decided_at", r.decided_at,
                "lockfile", r.lockfile, "cache_dir", r.cache_dir, "stale_lockfile", r.stale_lockfile, "remote",
                r.remote, "refused_entry", r.refused_entry);
    if (j.contains("result")) r.result = result_from_json(j.at("result"), where);
    return r;
  } catch (const std::exception& x) {  // JSON errors and result_from_json's
    *why = where + ": not a build step's record (" + std::string(x.what()) + ")";
    return std::nullopt;
  }
}

std::string gate_record_path(const std::string& out, const std::string& check) {
  return out + ".gate-" + check + ".json";
}

std::string gate_record_text(const GateRecord& g) {
  nlohmann::json j = {{"kernelblaster_gate", 1},         {"check", g.check},   {"exit_code", g.exit_code},
                      {"verdict", g.verdict},            {"device", g.device}, {"judged_at", g.judged_at},
                      {"judged_sha256", g.judged_sha256}};
  if (g.speedup > 0) j["speedup"] = g.speedup;
  return j.dump(2) + "\n";
}

std::optional<GateRecord> parse_gate_record(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || !j.contains("kernelblaster_gate")) return std::nullopt;
    GateRecord g;
    g.check = j.value("check", "");
    g.exit_code = j.value("exit_code", 2);
    g.verdict = j.value("verdict", "");
    g.speedup = j.value("speedup", 0.0);
    g.device = j.value("device", "");
    g.judged_at = j.value("judged_at", "");
    g.judged_sha256 = j.value("judged_sha256", "");
    return g;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a torn or foreign file: no verdict to show
  }
}

namespace {

// The build steps' stamps: <tree>/.../kernelblaster_generated/<target>/<source>.stamp.
std::vector<fs::path> stamp_files(const fs::path& tree) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(tree, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (it->is_directory(ec) && (p.filename() == "CMakeFiles" || p.filename() == "kernel_launches")) {
      it.disable_recursion_pending();
      continue;
    }
    if (p.extension() != ".stamp" || p.filename() == "recorded.stamp") continue;
    if (p.string().find("/kernelblaster_generated/") != std::string::npos) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<BuildRecord> build_tree_records(const std::string& tree, std::vector<std::string>* unreadable) {
  std::vector<BuildRecord> out;
  for (const fs::path& stamp : stamp_files(tree)) {
    std::string text, why;
    if (!read_file_if_present(stamp.string(), &text)) continue;
    std::optional<BuildRecord> r = parse_build_record(text, stamp.string(), &why);
    if (!r) {
      if (unreadable) unreadable->push_back(why);
      continue;
    }
    if (r->target.empty()) r->target = stamp.parent_path().filename().string();
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace kernelblaster::build_step
