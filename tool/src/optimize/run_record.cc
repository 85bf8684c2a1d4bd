#include "optimize/run_record.h"

#include <filesystem>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/file_util.h"

namespace kernelblaster::optimize {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json attempt_json(const Attempt& a) {
  json j = {{"tag", a.tag}, {"number", a.number}, {"end", attempt_end_name(a.end)}, {"detail", a.detail}};
  if (a.end == AttemptEnd::verified || a.end == AttemptEnd::rejected) j["status"] = status_name(a.status);
  if (a.end == AttemptEnd::llm_failed) j["llm_outcome"] = std::string(llm::outcome_name(a.llm_outcome));
  if (!a.code.empty()) j["candidate"] = "candidates/" + a.tag + ".cu";
  if (a.end == AttemptEnd::verified) j["speedup"] = a.speedup;
  if (const double share = bound_share(a.metrics); a.end == AttemptEnd::verified && share > 0) j["bound_share"] = share;
  j["tokens"] = {{"input", a.input_tokens}, {"output", a.output_tokens}};
  return j;
}

json step_json(const Step& s) {
  json attempts = json::array();
  for (const Attempt& a : s.attempts) attempts.push_back(attempt_json(a));
  json j = {{"trajectory", s.trajectory}, {"step", s.index},        {"state", s.state},
            {"technique", s.technique},   {"ranking", s.ranking},  {"base_speedup", s.base_speedup}, {"predicted", s.predicted},
            {"verified", s.verified},     {"speedup_vs_base", s.speedup_vs_base}, {"reward", s.reward},
            {"advantage", s.advantage},   {"accepted", s.accepted}, {"attempts", attempts}};
  if (s.base_bound_share > 0) j["base_bound_share"] = s.base_bound_share;  // the gap to the speed of light
  if (!s.kernel.empty()) j["kernel"] = s.kernel;  // the kernel unit the step rewrote
  if (s.looked_again)
    j["second_look"] = {{"status", status_name(s.second_look.status)},
                        {"speedup", s.second_look.speedup},
                        {"detail", s.second_look.detail},
                        {"plausibility", s.second_look.plausibility}};
  return j;
}

json stats_json(const kb::Stats& s) {
  return {{"tries", s.tries},         {"successes", s.successes},   {"measured", s.measured}, {"mean", s.mean},
          {"predicted", s.predicted}, {"confidence", s.confidence}, {"notes", s.notes}};
}

json request_json(const llm::Request& r) {
  json messages = json::array();
  for (const llm::Message& m : r.messages) messages.push_back({{"role", llm::role_name(m.role)}, {"content", m.content}});
  json j = {{"messages", messages}, {"max_tokens", r.sampling.max_tokens}};
  if (r.sampling.temperature) j["temperature"] = *r.sampling.temperature;
  if (!r.sampling.reasoning_effort.empty()) j["reasoning_effort"] = r.sampling.reasoning_effort;
  return j;
}

// What a prompts/<tag>.json file holds of any exchange with the model.
json exchange_json(const Exchange& x) {
  return {{"tag", x.tag},
          {"request", request_json(x.request)},
          {"reply", x.reply},
          {"llm_outcome", std::string(llm::outcome_name(x.llm_outcome))},
          {"tokens", {{"input", x.input_tokens}, {"output", x.output_tokens}}},
          {"cost_usd", x.cost_usd},
          {"seconds", x.llm_s}};
}

}  // namespace

std::string trajectory_json(const RunResult& result) {
  json steps = json::array();
  for (const Step& s : result.steps) steps.push_back(step_json(s));
  json outcomes = json::array();
  for (const kb::Outcome& o : result.outcomes)
    outcomes.push_back({{"state", o.state},
                        {"technique", o.technique},
                        {"arch", o.arch},
                        {"previous_technique", o.previous_technique},
                        {"verified", o.verified},
                        {"speedup", o.speedup},
                        {"note", o.note}});
  json reviews = json::array();
  for (const Review& rv : result.reviews) {
    json r = {{"tag", rv.tag}, {"steps_seen", rv.steps_seen}, {"applied", rv.applied}, {"detail", rv.detail}};
    if (rv.applied) r["update"] = json::parse(knowledge_update_json(rv.update));
    reviews.push_back(r);
  }
  json j = {{"steps", steps},
            {"kb_outcomes", outcomes},
            {"reviews", reviews},
            {"improved", result.improved},
            {"best", result.best_tag.empty() ? json(nullptr) : json(result.best_tag)},
            {"search_speedup", result.search_speedup},
            {"second_opinion", {{"opinion", opinion_name(result.second_opinion.opinion)},
                                {"reason", result.second_opinion.reason}}},
            {"stop_reason", result.stop.text()}};
  return j.dump(2) + "\n";
}

std::string kb_diff_json(const kb::KnowledgeBase& before, const kb::KnowledgeBase& after) {
  // Each entry of `now_map` whose stats differ from `then_map`'s: its key's
  // fields (`key_json`) with "before" (null when new) and "after".
  auto changed = [](const auto& then_map, const auto& now_map, auto key_json) {
    json out = json::array();
    for (const auto& [key, s] : now_map) {
      auto it = then_map.find(key);
      json now = stats_json(s);
      json then = it == then_map.end() ? json(nullptr) : stats_json(it->second);
      if (then == now) continue;
      json e = key_json(key);
      e["before"] = then;
      e["after"] = now;
      out.push_back(std::move(e));
    }
    return out;
  };
  json changes = changed(before.stats, after.stats, [](const kb::StatsKey& k) {
    return json{{"state", k.state}, {"technique", k.technique}, {"arch", k.arch}, {"setting", k.setting}};
  });
  json transitions = changed(before.transitions, after.transitions, [](const kb::TransitionKey& k) {
    return json{{"from", k.from}, {"to", k.to}, {"arch", k.arch}};
  });
  return json{{"stats", changes}, {"transitions", transitions}}.dump(2) + "\n";
}

std::string summary_json(const KernelTarget& target, const RunResult& result, double seconds) {
  int attempts = 0, verified = 0, static_rejections = 0, engine_rejections = 0;
  double llm_s = 0, judge_s = 0, loop_s = 0, loop_max_s = 0;
  for (const Step& s : result.steps) {
    loop_s += s.loop_s;
    loop_max_s = std::max(loop_max_s, s.loop_s);
    for (const Attempt& a : s.attempts) {
      ++attempts;
      llm_s += a.llm_s;
      judge_s += a.judge_s;
      if (a.end == AttemptEnd::verified) ++verified;
      if (a.end == AttemptEnd::static_check) ++static_rejections;
      if (a.end == AttemptEnd::rejected) ++engine_rejections;
    }
  }
  json j = {{"kernel", target.kernel},
            {"gpu", target.gpu},
            {"arch", target.arch},
            {"improved", result.improved},
            {"stop_reason", result.stop.text()},
            {"original", {{"status", status_name(result.original.status)},
                          {"median_us", result.original.median_us},
                          {"metrics", result.original.metrics}}},
            {"search_speedup", result.search_speedup},
            {"steps", result.steps.size()},
            {"attempts", attempts},
            {"verified_attempts", verified},
            {"static_check_rejections", static_rejections},
            {"engine_rejections", engine_rejections},
            {"llm", {{"requests", result.llm_requests},
                     {"input_tokens", result.input_tokens},
                     {"output_tokens", result.output_tokens},
                     {"cost_usd", result.llm_cost_usd}}},
            {"seconds", {{"total", seconds}, {"llm", llm_s}, {"judge", judge_s}, {"loop", loop_s}, {"loop_max_step", loop_max_s}}}};
  if (!result.unit.name.empty()) {  // the first kernel the run rewrote, where it is defined
    j["unit"] = {{"kernel", result.unit.name},
                 {"file", result.unit.file},
                 {"line", result.unit.line},
                 {"definition_bytes", result.unit.text.size()}};
    json kernels = json::array();  // every kernel a step rewrote, in order
    for (const Step& s : result.steps)
      if (!s.kernel.empty() && std::find(kernels.begin(), kernels.end(), s.kernel) == kernels.end()) kernels.push_back(s.kernel);
    j["kernels_rewritten"] = kernels;
  }
  if (result.improved) {
    j["best"] = result.best_tag;
    j["confirmed_speedup"] = result.confirmation.speedup;
    if (!result.confirmation.plausibility.empty()) j["plausibility"] = result.confirmation.plausibility;
    j["second_opinion"] = {{"opinion", opinion_name(result.second_opinion.opinion)},
                           {"reason", result.second_opinion.reason}};
  } else if (result.confirmation.status != Status::ok || result.confirmation.speedup > 0) {
    j["confirmation"] = {{"status", status_name(result.confirmation.status)},
                         {"speedup", result.confirmation.speedup},
                         {"detail", result.confirmation.detail}};
  }
  return j.dump(2) + "\n";
}

void write_run_artifacts(const std::string& dir, const KernelTarget& target, const RunResult& result,
                         const kb::KnowledgeBase& before, const kb::KnowledgeBase& after, double seconds) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "prompts", ec);
  fs::create_directories(fs::path(dir) / "candidates", ec);
  if (ec) throw std::runtime_error("cannot create the run directory " + dir + ": " + ec.message());
  for (const Step& s : result.steps)
    for (const Attempt& a : s.attempts) {
      json p = exchange_json(a);
      p["from_cache"] = a.from_cache;
      write_file(dir + "/prompts/" + a.tag + ".json", p.dump(2) + "\n");
      if (!a.code.empty()) write_file(dir + "/candidates/" + a.tag + ".cu", a.code);
    }
  for (const Review& rv : result.reviews)
    write_file(dir + "/prompts/" + rv.tag + ".json", exchange_json(rv).dump(2) + "\n");
  if (result.second_opinion.opinion != Opinion::not_asked)
    write_file(dir + "/prompts/second-opinion.json",
               json{{"request", request_json(result.second_opinion_request)}, {"reply", result.second_opinion_reply}}.dump(2) +
                   "\n");
  write_file(dir + "/trajectory.json", trajectory_json(result));
  write_file(dir + "/best.cu", result.best_source);
  write_file(dir + "/original.cu", target.source);
  write_file(dir + "/kb_diff.json", kb_diff_json(before, after));
  write_file(dir + "/summary.json", summary_json(target, result, seconds));
}

}  // namespace kernelblaster::optimize
