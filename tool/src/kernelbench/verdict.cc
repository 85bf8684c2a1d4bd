#include "kernelbench/verdict.h"

#include <nlohmann/json.hpp>

#include <sstream>
#include <vector>

namespace kernelblaster::kernelbench {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    out.push_back(line);
  }
  return out;
}

bool has_word(const std::string& line, const std::string& word) {
  for (std::size_t p = line.find(word); p != std::string::npos; p = line.find(word, p + 1)) {
    bool left = p == 0 || !std::isalnum(static_cast<unsigned char>(line[p - 1]));
    std::size_t e = p + word.size();
    bool right = e >= line.size() || !std::isalnum(static_cast<unsigned char>(line[e]));
    if (left && right) return true;
  }
  return false;
}

}  // namespace

DriverVerdict classify_driver_run(const ProcessResult& run) {
  DriverVerdict v;
  std::vector<std::string> lines = lines_of(run.output);
  for (const std::string& line : lines) {
    if (line.rfind("kb_shim: ", 0) != 0) continue;
    std::string rest = line.substr(9);
    // The shim only says launch_failed or crashed (see shim.h).
    v.status = rest.rfind("launch_failed", 0) == 0 ? Status::launch_failed : Status::crashed;
    v.detail = rest.substr(rest.find(':') == std::string::npos ? 0 : rest.find(':') + 2);
    return v;
  }
  if (run.spawn_failed) return {Status::harness_error, "driver did not start: " + run.how_it_ended()};
  if (run.timed_out) return {Status::timed_out, "driver " + run.how_it_ended()};
  if (run.signaled || run.exit_code != 0) {
    std::string tail = run.output_tail(2);
    return {Status::crashed, "driver " + run.how_it_ended() + (tail.empty() ? "" : ": " + tail)};
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (has_word(*it, "failed")) return {Status::wrong_result, "driver printed `" + *it + "` (torch::allclose rejected the output)"};
    if (has_word(*it, "passed")) return v;
  }
  return {Status::crashed, "driver printed neither passed nor failed: " + run.output_tail(2)};
}

bool parse_shim_timing(const std::string& json_text, ShimTiming* out, std::string* why) {
  try {
    nlohmann::json j = nlohmann::json::parse(json_text);
    ShimTiming t;
    t.method = j.at("method").get<std::string>();
    t.runs = j.at("runs").get<int>();
    t.median_ns = j.at("median_ns").get<double>();
    t.q1_ns = j.at("q1_ns").get<double>();
    t.q3_ns = j.at("q3_ns").get<double>();
    t.min_ns = j.at("min_ns").get<double>();
    t.event_median_ns = j.value("event_median_ns", 0.0);
    t.kernels_per_run = j.value("kernels_per_run", 0.0);
    t.untimed_runs = j.at("untimed_runs").get<int>();
    t.foreign_activities = j.at("foreign_activities").get<int>();
    t.untimed_detail = j.value("untimed_detail", "");
    t.tracer_note = j.value("tracer_note", "");
    *out = t;
    return true;
  } catch (const std::exception& e) {
    if (why) *why = std::string("bad timing JSON: ") + e.what();
    return false;
  }
}

}  // namespace kernelblaster::kernelbench
