#include "build_step/result_json.h"

#include <ctime>
#include <stdexcept>

namespace kernelblaster::build_step {

nlohmann::json gpu_to_json(const GpuFingerprint& gpu) {
  return {{"id", gpu.id()},
          {"name", gpu.name},
          {"arch", gpu.arch()},
          {"compute_capability", std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor)},
          {"sm_count", gpu.sm_count},
          {"driver_major", gpu.driver_major}};
}

GpuFingerprint gpu_from_json(const nlohmann::json& j) {
  GpuFingerprint gpu;
  if (!j.is_object()) return gpu;
  gpu.name = j.value("name", "");
  std::string cc = j.value("compute_capability", "");
  if (auto dot = cc.find('.'); dot != std::string::npos) {
    try {
      gpu.cc_major = std::stoi(cc.substr(0, dot));
      gpu.cc_minor = std::stoi(cc.substr(dot + 1));
    } catch (const std::exception&) {
      gpu.cc_major = gpu.cc_minor = 0;  // not a number: unknown, which matches no selector by capability
    }
  }
  gpu.sm_count = j.value("sm_count", 0);
  gpu.driver_major = j.value("driver_major", 0);
  return gpu;
}

nlohmann::json result_to_json(const TunedResult& r) {
  nlohmann::json j = {{"key", r.key},
                      {"source", r.source},
                      {"improved", r.improved},
                      {"flags", r.flags},
                      {"config", r.config},
                      {"speedup", r.speedup},
                      {"reference_median_us", r.reference_median_us},
                      {"median_us", r.median_us},
                      {"q1_us", r.q1_us},
                      {"q3_us", r.q3_us},
                      {"gpu", gpu_to_json(r.gpu)},
                      {"measured_at", r.measured_at},
                      {"tool_version", r.tool_version}};
  nlohmann::json defines = nlohmann::json::array();
  for (const auto& [name, value] : r.defines) defines.push_back({name, value});
  j["defines"] = defines;
  if (!r.original.empty()) j["original"] = r.original;
  if (!r.kernels.empty()) j["kernels"] = r.kernels;
  if (r.reverified) j["reverified"] = true;
  if (r.evaluations > 0) j["evaluations"] = r.evaluations;
  if (r.search_open) j["search_open"] = true;
  if (!r.prelude.empty()) j["prelude"] = r.prelude;
  if (!r.text.empty()) j["text"] = r.text;
  if (!r.key_parts.empty()) j["key_parts"] = r.key_parts;
  return j;
}

TunedResult result_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + ": a result must be a JSON object");
  TunedResult r;
  try {
    r.key = j.value("key", "");
    r.source = j.value("source", "");
    r.improved = j.value("improved", false);
    r.prelude = j.value("prelude", "");
    r.text = j.value("text", "");
    r.flags = j.value("flags", std::vector<std::string>{});
    if (j.contains("config") && j.at("config").is_object())
      for (const auto& [name, value] : j.at("config").items())
        r.config[name] = value.is_string() ? value.get<std::string>() : value.dump();
    if (j.contains("original") && j.at("original").is_object())
      for (const auto& [name, value] : j.at("original").items())
        r.original[name] = value.is_string() ? value.get<std::string>() : value.dump();
    if (j.contains("key_parts") && j.at("key_parts").is_object())
      for (const auto& [name, value] : j.at("key_parts").items())
        if (value.is_string()) r.key_parts[name] = value.get<std::string>();
    if (j.contains("kernels") && j.at("kernels").is_object())
      for (const auto& [name, value] : j.at("kernels").items())
        if (value.is_number()) r.kernels[name] = value.get<double>();
    if (j.contains("defines"))
      for (const auto& d : j.at("defines")) r.defines.emplace_back(d.at(0).get<std::string>(), d.at(1).get<std::string>());
    r.speedup = j.value("speedup", 1.0);
    r.reference_median_us = j.value("reference_median_us", 0.0);
    r.median_us = j.value("median_us", 0.0);
    r.q1_us = j.value("q1_us", 0.0);
    r.q3_us = j.value("q3_us", 0.0);
    r.gpu = gpu_from_json(j.value("gpu", nlohmann::json::object()));
    r.measured_at = j.value("measured_at", "");
    r.reverified = j.value("reverified", false);
    r.evaluations = j.value("evaluations", 0LL);
    r.search_open = j.value("search_open", false);
    r.tool_version = j.value("tool_version", "");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(where + ": malformed result: " + e.what());
  }
  return r;
}

}  // namespace kernelblaster::build_step
