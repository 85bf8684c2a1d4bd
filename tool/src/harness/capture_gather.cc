#include "harness/capture_gather.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/text.h"

namespace fs = std::filesystem;

namespace kernelblaster::harness {

Gathered gather_recorded_calls(const std::string& lines_path) {
  Gathered g;
  std::ifstream in(lines_path);
  // (source, launcher as recorded) -> the capture being assembled, in the
  // format parse_capture reads. A launcher recorded with two signatures (the
  // source changed between runs) gives two captures; the build step keeps
  // the one that matches the source as it is.
  std::map<std::pair<std::string, std::string>, nlohmann::json> captures;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("launcher") || !j["launcher"].is_object() || !j["launcher"].contains("name") ||
        !j["launcher"]["name"].is_string() || !j.contains("args") || !j["args"].is_array() ||
        !j.contains("source") || !j["source"].is_string()) {
      ++g.unreadable;
      continue;
    }
    nlohmann::json params = j["launcher"].value("params", nlohmann::json::array());
    if (!params.is_array()) params = nlohmann::json::array();  // parse_capture refuses it below, in one line
    bool outside = false;
    for (std::size_t i = 0; i < j["args"].size() && i < params.size(); ++i)
      if (params[i].is_object() && params[i].contains("kind") && params[i]["kind"] == "buffer" &&
          (!j["args"][i].is_object() || !j["args"][i].contains("elements")))
        outside = true;
    if (outside) {
      ++g.left_out;
      ++g.left_out_by_source[j["source"].get<std::string>()];
      continue;
    }
    auto key = std::make_pair(j["source"].get<std::string>(), j["launcher"].dump());
    nlohmann::json& c = captures[key];
    if (c.is_null())
      c = {{"format", kCaptureFormat}, {"source", key.first}, {"launcher", j["launcher"]}, {"calls", nlohmann::json::array()}};
    c["calls"].push_back({{"args", j["args"]}});
  }
  for (const auto& [key, c] : captures) {
    try {
      // The name as recorded, quoted: a refused one may hold a line break (found by fuzz.recorded_calls).
      g.captures.push_back(
          parse_capture(c.dump(), lines_path + " (" + quoted_excerpt(c["launcher"]["name"].get<std::string>()) + ")"));
    } catch (const CaptureError& x) {
      g.errors.push_back(x.what());
    }
  }
  return g;
}

std::string capture_file_name(const Capture& c) {
  return fs::path(c.source).stem().string() + "." + c.launcher.name + ".capture.json";
}

}  // namespace kernelblaster::harness
