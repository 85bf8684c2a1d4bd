#include "report/tune_report.h"

#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/status.h"
#include "report/format.h"
#include "report/roofline_chart.h"

namespace kernelblaster::report {
namespace {

using nlohmann::json;

std::string config_text(const json& e) {
  if (!e.is_object()) return "?";
  std::string out;
  const json settings = e.value("settings", json::object());
  for (const auto& [name, value] : settings.items())
    out += (out.empty() ? "" : ", ") + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  for (const auto& f : e.value("flags", json::array()))
    if (f.is_string()) out += (out.empty() ? "" : " ") + f.get<std::string>();
  return out.empty() ? "(defaults, no flags)" : out;
}

// An evaluation's status, read from the run log on arrival.
bool verified(const json& e) {
  return status_named(e.value("status", std::string()), Status::tool_error) == Status::ok;
}

std::string tone_of(const json& e) {
  if (!e.value("duplicate_of", std::string()).empty()) return "neutral";
  return verified(e) ? "good" : "bad";
}

// Best so far against evaluation number and against seconds.
// What the table says beside an evaluation's status: the judge's line, the
// kernel it made slower (measured, never kept), or its machine-code twin.
std::string evaluation_detail(const json& e) {
  const std::string twin = e.value("duplicate_of", std::string());
  if (!twin.empty()) return "same machine code as " + twin;
  const std::string slower = e.value("slower_kernel", std::string());
  if (!slower.empty()) return "not kept: a kernel is slower (" + slower + ")";
  const std::string at_a_size = e.value("slower_at_a_size", std::string());
  if (!at_a_size.empty()) return "slower at one size: " + at_a_size;
  return e.value("detail", std::string());
}

void add_progress(Document& doc, const json& evals) {
  Chart by_n{"best-by-evaluation", "Best speedup so far, by evaluation", "evaluation", "speedup over the original", {}, 1.0};
  Chart by_s{"best-by-seconds", "Best speedup so far, by seconds into the search", "seconds", "speedup over the original",
             {}, 1.0};
  Series best{"best so far", {}, true}, each{"each verified candidate", {}, false, true};
  Series best_s{"best so far", {}, true};
  double top = 1.0;
  for (const json& e : evals) {
    const double n = e.value("n", 0.0);
    const double sp = verified(e) ? e.value("speedup", 0.0) : 0.0;
    if (sp > 0) each.points.push_back({n, sp});
    if (e.value("accepted", false) && sp > top) top = sp;
    best.points.push_back({n, top});
    best_s.points.push_back({e.value("at_s", 0.0), top});
  }
  by_n.series = {best, each};
  by_s.series = {best_s};
  doc.add(by_n);
  doc.add(by_s);
}

void add_statuses(Document& doc, const json& evals) {
  Strip strip{"candidates", "Every candidate in the order measured (green: verified, red: failed, grey: same machine code "
                            "as one measured)", {}};
  std::map<std::string, int> counts;
  for (const json& e : evals) {
    std::string status = e.value("status", std::string("?"));
    std::string dup = e.value("duplicate_of", std::string());
    std::string text = (dup.empty() ? status : "duplicate") + ": " + e.value("id", std::string()) + " " +
                       speedup_text(e.value("speedup", 0.0));
    strip.cells.push_back({text, tone_of(e)});
    ++counts[dup.empty() ? status : "duplicate of a measured one"];
  }
  doc.add(strip);
  Table t{{"status", "candidates"}, {}};
  for (const auto& [status, n] : counts)
    t.rows.push_back({{status, status_named(status, Status::tool_error) == Status::ok ? "good" : ""}, {std::to_string(n), ""}});
  doc.add(t);
}

void add_roofline(Document& doc, const json& log, double best_speedup) {
  const json m = log.value("metrics", json::object());
  if (!m.contains("achieved_bandwidth_gbs") && !m.contains("achieved_gflops")) return;
  doc.add(Heading{"Roofline position"});
  doc.add(Paragraph{"The original's position is measured (its profile); the winner's is the original's declared work "
                    "over the winner's time (its speedup), since the winner does the same work."});
  const double bw = m.value("achieved_bandwidth_gbs", 0.0), gf = m.value("achieved_gflops", 0.0);
  Table t{{"", "arithmetic intensity (FLOP/byte)", "achieved GB/s", "achieved GFLOP/s", "% of peak bandwidth"}, {}};
  auto pct = [&](double scale) {
    return m.contains("bandwidth_pct_of_peak") ? fixed(m.value("bandwidth_pct_of_peak", 0.0) * scale, 1) : "(no ceilings)";
  };
  t.rows.push_back({{"original"}, {fixed(m.value("arithmetic_intensity", 0.0), 3)}, {fixed(bw, 0)}, {fixed(gf, 0)}, {pct(1)}});
  if (best_speedup > 1)
    t.rows.push_back({{"winner", "good"}, {fixed(m.value("arithmetic_intensity", 0.0), 3)}, {fixed(bw * best_speedup, 0)},
                      {fixed(gf * best_speedup, 0)}, {pct(best_speedup)}});
  doc.add(t);
  if (std::optional<Chart> c = roofline_chart(m, best_speedup)) doc.add(*c);
}

}  // namespace

bool is_tune_log(const json& j) {
  return j.is_object() && j.contains("evaluations") && j["evaluations"].is_array() && j.contains("space_size");
}

Document tune_report(const json& log, const std::string& path) {
  if (!is_tune_log(log)) throw std::runtime_error(path + ": not a tuning run's log (no evaluations and space_size)");
  const json evals = log["evaluations"];
  Document doc;
  doc.title = "Tuning run: " + log.value("kernel", std::string("?")) + " on " + log.value("gpu", std::string("?"));
  doc.subtitle = log.value("source", path) + " · " + log.value("date", std::string()) + " · policy " +
                 log.value("policy", std::string("?")) + " · " + log.value("arch", std::string());
  const double best = log.value("best_speedup", 0.0);
  const std::string best_id = log.value("best", std::string());
  json winner;
  for (const json& e : evals)
    if (e.value("id", std::string()) == best_id) winner = e;
  int measured = 0, duplicates = 0;
  for (const json& e : evals) {
    if (!e.is_object()) throw std::runtime_error(path + ": an evaluation that is not an object");
    (e.value("duplicate_of", std::string()).empty() ? measured : duplicates)++;
  }
  Table summary{{"", ""}, {}};
  summary.rows.push_back({{"kept"}, {best_id.empty() ? "the original (nothing verified beat it)"
                                     : winner.is_object() ? config_text(winner)
                                                          : best_id,
                                     best_id.empty() ? "neutral" : "good"}});
  summary.rows.push_back({{"speedup"}, {best_id.empty() ? "1.000x" : speedup_text(best)}});
  summary.rows.push_back({{"original's median"}, {fixed(log.value("reference_median_us", 0.0), 2) + " us"}});
  summary.rows.push_back({{"state"}, {log.value("state", std::string("?"))}});
  summary.rows.push_back({{"evaluations"}, {std::to_string(measured) + " measured, " + std::to_string(duplicates) +
                                            " duplicates, of a space of " +
                                            std::to_string(log.value("space_size", 0)) + " configurations"}});
  std::string phases;
  const json phase_seconds = log.value("phases_s", json::object());
  for (const auto& [phase, s] : phase_seconds.items())
    if (s.is_number()) phases += (phases.empty() ? "" : ", ") + phase + " " + fixed(s.get<double>(), 1) + " s";
  if (!phases.empty()) summary.rows.push_back({{"time"}, {phases}});
  doc.add(summary);
  doc.add(Heading{"Progress"});
  add_progress(doc, evals);
  doc.add(Heading{"Candidates"});
  add_statuses(doc, evals);
  add_roofline(doc, log, best_id.empty() ? 1.0 : best);
  doc.add(Heading{"Every evaluation"});
  Table all{{"n", "configuration", "status", "speedup", "median (us)", "at (s)", "detail"}, {}};
  for (const json& e : evals)
    all.rows.push_back({{std::to_string(e.value("n", 0))},
                        {config_text(e), e.value("id", std::string()) == best_id ? "good" : ""},
                        {e.value("status", std::string()), tone_of(e)},
                        {verified(e) ? speedup_text(e.value("speedup", 0.0)) : "-"},
                        {fixed(e.value("median_us", 0.0), 2)},
                        {fixed(e.value("at_s", 0.0), 1)},
                        {evaluation_detail(e)}});
  doc.add(all);
  return doc;
}

}  // namespace kernelblaster::report
