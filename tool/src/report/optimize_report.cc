#include "report/optimize_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/status.h"
#include "report/format.h"
#include "report/roofline_chart.h"

namespace kernelblaster::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const fs::path& p) {
  const std::string text = read_file(p.string());
  try {
    return json::parse(text);
  } catch (const json::exception& x) {
    throw std::runtime_error(p.string() + ": not JSON (" + std::string(x.what()) + ")");
  }
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

// The kept kernel's speedup: the confirmed one (the second look) where there
// is one.
double kept_speedup(const json& summary) {
  if (!summary.value("improved", false)) return 1.0;
  return num(summary, "confirmed_speedup", num(summary, "search_speedup", 1.0));
}

void add_steps(Document& doc, const json& trajectory) {
  doc.add(Heading{"Steps"});
  doc.add(Paragraph{"One row per step, by trajectory; each step's attempts below it (a fix attempt follows a failed "
                    "one). The step's verdict is its last attempt's. A step's speedup is over its base (the kernel "
                    "the step started from), on the run's seeds; the headline's is the kept kernel over the "
                    "original, measured again on fresh seeds, so the two differ."});
  Table t{{"trajectory / step / attempt", "technique", "state", "verdict", "speedup over the step's base", "detail"}, {}};
  for (const json& s : trajectory.value("steps", json::array())) {
    const bool verified = s.value("verified", false), accepted = s.value("accepted", false);
    const std::string kernel = str(s, "kernel");  // a rewrite one kernel at a time: the kernel the step rewrote
    t.rows.push_back({{"t" + std::to_string(s.value("trajectory", 0)) + " / step " + std::to_string(s.value("step", 0)) +
                       (kernel.empty() ? "" : " (" + kernel + ")")},
                      {str(s, "technique")},
                      {str(s, "state")},
                      {accepted ? "kept as the next base" : verified ? "verified, not kept" : "failed",
                       accepted ? "good" : verified ? "neutral" : "bad"},
                      {verified ? speedup_text(num(s, "speedup_vs_base")) : "-"},
                      {"predicted " + speedup_text(num(s, "predicted", 1)) + ", reward " + fixed(num(s, "reward"), 3)}});
    for (const json& a : s.value("attempts", json::array())) {
      const bool ok = attempt_end_named(str(a, "end"), AttemptEnd::not_attempted) == AttemptEnd::verified;
      t.rows.push_back({{"    attempt " + std::to_string(a.value("number", 0)) + " (" + str(a, "tag") + ")"},
                        {""},
                        {""},
                        {str(a, "status").empty() ? str(a, "end") : str(a, "status"), ok ? "good" : "bad"},
                        {ok ? speedup_text(num(a, "speedup")) : "-"},
                        {str(a, "detail")}});
    }
  }
  doc.add(t);
}

void add_speedup_chart(Document& doc, const json& trajectory) {
  Chart c{"speedup-by-step", "Speedup over the original of each step's base, by trajectory", "step",
          "speedup over the original", {}, 1.0};
  std::map<int, Series> by_trajectory;
  for (const json& s : trajectory.value("steps", json::array())) {
    int t = s.value("trajectory", 0);
    Series& series = by_trajectory[t];
    series.name = "trajectory " + std::to_string(t);
    double base = num(s, "base_speedup", 1.0);
    double after = s.value("accepted", false) ? base * num(s, "speedup_vs_base", 1.0) : base;
    series.points.push_back({static_cast<double>(s.value("step", 0)) + 1, after});
  }
  for (auto& [t, s] : by_trajectory) {
    s.points.insert(s.points.begin(), Point{0, 1.0});
    c.series.push_back(s);
  }
  if (!c.series.empty()) doc.add(c);
}

void add_llm_and_kb(Document& doc, const json& summary, const fs::path& dir) {
  const json llm = summary.value("llm", json::object());
  doc.add(Heading{"LLM use"});
  doc.add(Table{{"requests", "input tokens", "output tokens", "cost"},
                {{{std::to_string(llm.value("requests", 0))},
                  {std::to_string(llm.value("input_tokens", 0))},
                  {std::to_string(llm.value("output_tokens", 0))},
                  {"$" + fixed(num(llm, "cost_usd"), 4)}}}});
  if (!fs::exists(dir / "kb_diff.json")) return;
  const json diff = read_json(dir / "kb_diff.json");
  doc.add(Heading{"What the KB learnt"});
  Table t{{"technique", "state", "arch", "setting", "tries before → after", "predicted before → after"}, {}};
  for (const json& s : diff.value("stats", json::array())) {
    const json before = s.value("before", json());
    const json after = s.value("after", json::object());
    t.rows.push_back({{str(s, "technique")},
                      {str(s, "state")},
                      {str(s, "arch")},
                      {str(s, "setting")},
                      {(before.is_object() ? std::to_string(before.value("tries", 0)) : "new") + " → " +
                       std::to_string(after.value("tries", 0))},
                      {(before.is_object() ? speedup_text(num(before, "predicted", 1)) : "-") + " → " +
                       speedup_text(num(after, "predicted", 1))}});
  }
  if (t.rows.empty()) doc.add(Paragraph{"Nothing: no step reached the engine."});
  else doc.add(t);
}

ProblemOutcome outcome_of(const std::string& name, const json& summary) {
  ProblemOutcome o;
  o.name = name;
  o.correct = summary.value("verified_attempts", 0) > 0 &&
              status_named(summary.value("original", json::object()).value("status", ""), Status::tool_error) == Status::ok;
  o.speedup = kept_speedup(summary);
  return o;
}

}  // namespace

bool is_optimize_run(const std::string& dir) {
  return fs::is_regular_file(fs::path(dir) / "summary.json") && fs::is_regular_file(fs::path(dir) / "trajectory.json");
}

bool is_directory_run(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && is_optimize_run(e.path().string())) return true;
  return false;
}

double fast_p(const std::vector<ProblemOutcome>& problems, double p) {
  if (problems.empty()) return 0;
  long n = std::count_if(problems.begin(), problems.end(),
                         [p](const ProblemOutcome& o) { return o.correct && o.speedup > p; });
  return static_cast<double>(n) / static_cast<double>(problems.size());
}

double geometric_mean_speedup(const std::vector<ProblemOutcome>& problems) {
  if (problems.empty()) return 0;
  double log_sum = 0;
  for (const ProblemOutcome& o : problems) log_sum += std::log(o.speedup > 0 ? o.speedup : 1.0);
  return std::exp(log_sum / static_cast<double>(problems.size()));
}

Document optimize_report(const std::string& dir_text) {
  const fs::path dir(dir_text);
  const json summary = read_json(dir / "summary.json");
  const json trajectory = read_json(dir / "trajectory.json");
  Document doc;
  doc.title = "Optimize run: " + str(summary, "kernel") + " on " + str(summary, "gpu");
  doc.subtitle = dir_text + " · " + str(summary, "arch") + " · stopped: " + str(summary, "stop_reason");
  const bool improved = summary.value("improved", false);
  doc.add(Table{{"", ""},
                {{{"kept"}, {improved ? "a rewrite (" + str(summary, "best") + ")" : "the original", improved ? "good" : "neutral"}},
                 {{improved ? "speedup over the original (measured again, fresh seeds)" : "speedup over the original"},
                  {speedup_text(kept_speedup(summary))}},
                 {{"original's median"}, {fixed(num(summary.value("original", json::object()), "median_us"), 2) + " us"}},
                 {{"steps / attempts / verified"},
                  {std::to_string(summary.value("steps", 0)) + " / " + std::to_string(summary.value("attempts", 0)) + " / " +
                   std::to_string(summary.value("verified_attempts", 0))}},
                 {{"rejected by the static checks / by the engine"},
                  {std::to_string(summary.value("static_check_rejections", 0)) + " / " +
                   std::to_string(summary.value("engine_rejections", 0))}},
                 {{"seconds"}, {fixed(num(summary.value("seconds", json::object()), "total"), 1)}}}});
  add_speedup_chart(doc, trajectory);
  const json original_metrics = summary.value("original", json::object()).value("metrics", json::object());
  if (std::optional<Chart> c = roofline_chart(original_metrics, improved ? kept_speedup(summary) : 1.0)) doc.add(*c);
  add_steps(doc, trajectory);
  if (improved && fs::exists(dir / "original.cu") && fs::exists(dir / "best.cu"))
    doc.add(SideBySide{"The kept kernel against the original", "original.cu", "best.cu", read_file((dir / "original.cu").string()),
                       read_file((dir / "best.cu").string())});
  else if (improved && fs::exists(dir / "best.cu"))
    doc.add(SideBySide{"The kept kernel (the run directory has no original.cu, written since 2026-11-26)", "",
                       "best.cu", "", read_file((dir / "best.cu").string())});
  else if (improved)
    doc.add(Paragraph{"The run directory has neither original.cu nor best.cu: the kept kernel cannot be shown."});
  add_llm_and_kb(doc, summary, dir);
  return doc;
}

Document directory_report(const std::string& dir_text) {
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(dir_text))
    if (e.is_directory() && is_optimize_run(e.path().string())) runs.push_back(e.path());
  std::sort(runs.begin(), runs.end());
  if (runs.empty()) throw std::runtime_error(dir_text + ": no run directories (summary.json and trajectory.json) in it");
  std::vector<ProblemOutcome> problems;
  Table t{{"problem", "result", "speedup", "steps", "verified attempts", "LLM cost", "GPU"}, {}};
  double cost = 0;
  std::string gpu;
  for (const fs::path& run : runs) {
    const json s = read_json(run / "summary.json");
    ProblemOutcome o = outcome_of(run.filename().string(), s);
    problems.push_back(o);
    const bool improved = s.value("improved", false);
    cost += num(s.value("llm", json::object()), "cost_usd");
    if (gpu.empty()) gpu = str(s, "gpu");
    t.rows.push_back({{o.name},
                      {improved ? "kept a rewrite" : o.correct ? "original kept" : "nothing verified",
                       improved ? "good" : o.correct ? "neutral" : "bad"},
                      {speedup_text(o.speedup)},
                      {std::to_string(s.value("steps", 0))},
                      {std::to_string(s.value("verified_attempts", 0))},
                      {"$" + fixed(num(s.value("llm", json::object()), "cost_usd"), 4)},
                      {str(s, "gpu")}});
  }
  Document doc;
  doc.title = "KernelBench directory run: " + std::to_string(problems.size()) + " problems" + (gpu.empty() ? "" : " on " + gpu);
  doc.subtitle = dir_text;
  const long kept = std::count_if(problems.begin(), problems.end(), [](const ProblemOutcome& o) { return o.speedup > 1; });
  doc.add(Table{{"", ""},
                {{{"geometric-mean speedup over the original (kept kernels; 1 where the original was kept)"},
                  {speedup_text(geometric_mean_speedup(problems))}},
                 {{"fast_1 (correct and faster than the original)"}, {fixed(100 * fast_p(problems, 1.0), 1) + "%"}},
                 {{"problems with a kept rewrite"}, {std::to_string(kept) + " of " + std::to_string(problems.size())}},
                 {{"LLM cost"}, {"$" + fixed(cost, 4)}}}});
  Chart curve{"fast-p", "fast_p: share of problems correct and more than p times as fast as the original", "p",
              "share of problems (%)", {}, 0.0};
  Series s{"fast_p", {}, true};
  for (int i = 0; i <= 40; ++i) s.points.push_back({i / 10.0, 100 * fast_p(problems, i / 10.0)});
  curve.series.push_back(s);
  doc.add(Heading{"fast_p"});
  doc.add(curve);
  doc.add(Heading{"Problems"});
  doc.add(t);
  return doc;
}

}  // namespace kernelblaster::report
