#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "report/html_writer.h"
#include "report/line_diff.h"
#include "report/markdown_writer.h"
#include "report/optimize_report.h"
#include "report/report.h"
#include "report/svg_chart.h"
#include "report/tune_report.h"

namespace kernelblaster::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportTicks, AreRoundAndCoverTheRange) {
  std::vector<double> t = nice_ticks(0.93, 1.41, 5);
  ASSERT_GE(t.size(), 3u);
  EXPECT_GE(t.front(), 0.93);
  EXPECT_LE(t.back(), 1.41 + 1e-9);
  EXPECT_NEAR(t[1] - t[0], 0.2, 1e-9);  // 0.48 over 4 gaps rounds up to 0.2
  EXPECT_EQ(nice_ticks(0, 1000, 6), (std::vector<double>{0, 200, 400, 600, 800, 1000}));
}

TEST(ReportDiff, PairsEqualLinesAndMarksTheRest) {
  auto rows = diff_lines({"a", "b", "c", "d"}, {"a", "x", "c", "d", "e"});
  std::string kinds;
  for (const DiffRow& r : rows)
    kinds += r.kind == DiffRow::Kind::same ? 's' : r.kind == DiffRow::Kind::added ? '+' : r.kind == DiffRow::Kind::removed ? '-' : '~';
  EXPECT_EQ(kinds, "s-+ss+");
  EXPECT_EQ(split_lines("x\ny\n"), (std::vector<std::string>{"x", "y"}));
}

TEST(ReportWriters, EscapeWhatTheRunSays) {
  Document d;
  d.title = "Tuning run: <script>alert(1)</script>.cu";
  d.add(Table{{"a|b"}, {{{"x|y <b>", "good"}}}});
  std::string html = to_html(d);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"good\">x|y &lt;b&gt;</td>"), std::string::npos);
  std::string md = to_markdown(d);
  EXPECT_NE(md.find("| x\\|y <b> |"), std::string::npos);
}

TEST(ReportCharts, CarryEveryPointAsData) {
  Chart c{"c1", "t", "x", "y", {Series{"s", {{1, 1.0}, {2, 1.2}, {3, 1.2}}, true}}, 1.0};
  std::string svg = svg_chart(c);
  EXPECT_NE(svg.find("data-chart=\"c1\""), std::string::npos);
  EXPECT_NE(svg.find("data-points=\"3\""), std::string::npos);
  EXPECT_EQ(count(svg, "<circle"), 3u);
  EXPECT_NE(svg.find("data-x=\"2\" data-y=\"1.2\""), std::string::npos);
  // The Markdown writes a staircase where it steps, and its end.
  Document d;
  d.add(c);
  std::string md = to_markdown(d);
  EXPECT_NE(md.find("| s | 1 | 1 |"), std::string::npos);
  EXPECT_NE(md.find("| s | 2 | 1.2 |"), std::string::npos);
  EXPECT_NE(md.find("| s | 3 | 1.2 |"), std::string::npos);
}

TEST(ReportFastP, CountsCorrectAndFasterProblems) {
  std::vector<ProblemOutcome> p = {{"a", true, 2.0}, {"b", true, 1.0}, {"c", false, 1.0}, {"d", true, 0.5}};
  EXPECT_DOUBLE_EQ(fast_p(p, 0), 0.75);
  EXPECT_DOUBLE_EQ(fast_p(p, 1), 0.25);
  EXPECT_DOUBLE_EQ(fast_p(p, 2), 0.0);
  EXPECT_NEAR(geometric_mean_speedup(p), 1.0, 1e-12);  // 2 x 1 x 1 x 0.5
  EXPECT_EQ(fast_p({}, 1), 0.0);
}

TEST(TuneReport, FromARealRunLog) {
  std::ifstream in(std::string(KB_REPORT_FIXTURES) + "/tune/rmsnorm-h200.log.json");
  json log = json::parse(in);
  Document d = tune_report(log, "run.log.json");
  std::string html = to_html(d);
  EXPECT_NE(html.find("rmsnorm.cu on NVIDIA H200"), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"best-by-evaluation\""), std::string::npos);
  EXPECT_NE(html.find("data-strip=\"candidates\" data-cells=\"19\""), std::string::npos);
  EXPECT_NE(html.find("BLOCK_SIZE=128, VEC_BYTES=16"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_THROW(tune_report(json::object(), "x.json"), std::runtime_error);
}

// With this GPU's ceilings known, the original and the winner are drawn
// under its roofline: log axes, the roof through the ridge point.
TEST(TuneReport, DrawsTheRooflineOfTheGpu) {
  std::ifstream in(std::string(KB_REPORT_FIXTURES) + "/tune/rmsnorm-h200.log.json");
  json log = json::parse(in);
  json& m = log["metrics"];
  // 2,992 GB/s at 62.5% of a 4,787 GB/s peak; 2,992 GFLOP/s at 5% of 59,835.
  m["bandwidth_pct_of_peak"] = 62.5;
  m["flops_pct_of_peak"] = 5.0;
  const std::string html = to_html(tune_report(log, "run.log.json"));
  EXPECT_NE(html.find("data-chart=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("roof: 4787 GB/s, 59833 GFLOP/s"), std::string::npos) << html.substr(html.find("roof"), 80);
  EXPECT_NE(html.find("data-series=\"original\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"winner\""), std::string::npos);
  EXPECT_NE(html.find(">10000</text>"), std::string::npos);  // a decade's tick
  // The ridge point is a point of the roof: the peaks meet there.
  EXPECT_NE(html.find("data-x=\"12.49"), std::string::npos);
  // Without ceilings there is no plot, only the table.
  m.erase("flops_pct_of_peak");
  EXPECT_EQ(to_html(tune_report(log, "run.log.json")).find("data-chart=\"roofline\""), std::string::npos);
}

TEST(TuneReport, SaysWhyAFasterConfigurationWasNotKept) {
  std::ifstream in(std::string(KB_REPORT_FIXTURES) + "/tune/rmsnorm-h200.log.json");
  json log = json::parse(in);
  json& e = log["evaluations"][0];
  e["status"] = "ok";
  e["speedup"] = 1.3;
  e["slower_kernel"] = "rmsnorm 0.950x at 4096";
  const std::string md = to_markdown(tune_report(log, "run.log.json"));
  EXPECT_NE(md.find("not kept: a kernel is slower (rmsnorm 0.950x at 4096)"), std::string::npos);
}

TEST(OptimizeReport, ShowsTheKeptKernelAgainstTheOriginal) {
  fs::path dir = fs::temp_directory_path() / "kb_report_optimize_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "summary.json") << json{{"kernel", "softmax.cu"}, {"gpu", "NVIDIA H200"}, {"improved", true},
                                              {"confirmed_speedup", 1.5}, {"best", "t0-s0-a0"}, {"steps", 1},
                                              {"attempts", 2}, {"verified_attempts", 1},
                                              {"original", {{"status", "ok"}, {"median_us", 10},
                                                            {"metrics", {{"arithmetic_intensity", 0.25},
                                                                         {"achieved_gflops", 500},
                                                                         {"achieved_bandwidth_gbs", 2000},
                                                                         {"bandwidth_pct_of_peak", 50},
                                                                         {"flops_pct_of_peak", 1}}}}}}
                                             .dump();
  std::ofstream(dir / "trajectory.json")
      << json{{"steps",
               {{{"trajectory", 0}, {"step", 0}, {"technique", "vectorized_memory_access"}, {"state", "memory_bound"},
                 {"kernel", "softmax_rows"}, {"verified", true}, {"accepted", true}, {"speedup_vs_base", 1.5}, {"base_speedup", 1.0},
                 {"attempts",
                  {{{"number", 0}, {"tag", "t0-s0-a0"}, {"end", "rejected"}, {"status", "wrong_result"}, {"detail", "y[3] off"}},
                   {{"number", 1}, {"tag", "t0-s0-a1"}, {"end", "verified"}, {"status", "ok"}, {"speedup", 1.5}}}}}}}}
             .dump();
  std::ofstream(dir / "original.cu") << "int a;\nint b;\n";
  std::ofstream(dir / "best.cu") << "int a;\nint c;\n";
  Report r = make_report(dir.string());
  EXPECT_EQ(r.kind, Kind::optimize_run);
  std::string html = to_html(r.document);
  EXPECT_NE(html.find("data-chart=\"speedup-by-step\""), std::string::npos);
  EXPECT_NE(html.find("wrong_result"), std::string::npos);
  EXPECT_NE(to_markdown(r.document).find("t0 / step 0 (softmax_rows)"), std::string::npos);  // the kernel it rewrote
  EXPECT_NE(html.find("<tr class=\"removed\"><td class=\"l\">int b;</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"added\"><td class=\"l\"></td><td class=\"r\">int c;</td>"), std::string::npos);
  EXPECT_NE(to_markdown(r.document).find("- int b;\n+ int c;"), std::string::npos);
  // The original and the kept kernel under this GPU's roofline: 4,000 GB/s
  // and 50,000 GFLOP/s, the kept one 1.5 times higher at the same intensity.
  EXPECT_NE(html.find("data-chart=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("roof: 4000 GB/s, 50000 GFLOP/s"), std::string::npos);
  EXPECT_NE(html.find("data-x=\"0.25\" data-y=\"750\""), std::string::npos);
  // Two speedups, and the page says why they differ.
  EXPECT_NE(html.find("speedup over the original (measured again, fresh seeds)"), std::string::npos);
  EXPECT_NE(to_markdown(r.document).find("A step's speedup is over its base"), std::string::npos);
  // Without original.cu, the kept kernel's code is still shown.
  fs::remove(dir / "original.cu");
  html = to_html(make_report(dir.string()).document);
  EXPECT_NE(html.find("<td class=\"r\">int c;</td>"), std::string::npos) << html;
  fs::remove_all(dir);
}

// Red and green colour failed and verified in strips and tables, so no
// chart series is drawn in either.
TEST(ReportWriters, NoChartSeriesIsRedOrGreen) {
  Document d;
  d.add(Chart{"c", "c", "x", "y", {{"a", {{0, 1}}}, {"b", {{0, 2}}}, {"c", {{0, 3}}}, {"d", {{0, 4}}}}, 1.0});
  const std::string html = to_html(d);
  const std::string style = html.substr(0, html.find("</style>"));
  for (const std::string& series : {".s0 path", ".s1 path", ".s2 path", ".s3 path"}) {
    const std::size_t at = style.find(series);
    ASSERT_NE(at, std::string::npos) << series;
    const std::string rule = style.substr(at, style.find('}', at) - at);
    EXPECT_EQ(rule.find("#cf222e"), std::string::npos) << rule;  // the strip's red
    EXPECT_EQ(rule.find("#2da44e"), std::string::npos) << rule;  // the strip's green
    EXPECT_EQ(rule.find("#1a7f37"), std::string::npos) << rule;
  }
}

TEST(DirectoryReport, FromRealRunsOfThreeProblems) {
  Report r = make_report(std::string(KB_REPORT_FIXTURES) + "/optimize-dir");
  EXPECT_EQ(r.kind, Kind::directory_run);
  std::string md = to_markdown(r.document);
  EXPECT_NE(md.find("3 problems on NVIDIA H200"), std::string::npos);
  EXPECT_NE(md.find("| 036_RMSNorm | kept a rewrite | 33.792x |"), std::string::npos);
  EXPECT_NE(md.find("| fast_1 (correct and faster than the original) | 33.3% |"), std::string::npos);
  EXPECT_NE(to_html(r.document).find("data-chart=\"fast-p\" data-points=\"41\""), std::string::npos);
}

TEST(Report, SaysWhatAPathIsNot) {
  fs::path dir = fs::temp_directory_path() / "kb_report_empty_test";
  fs::create_directories(dir);
  EXPECT_THROW(make_report(dir.string()), std::runtime_error);
  std::ofstream(dir / "x.json") << "{\"not\": \"a log\"}";
  EXPECT_THROW(make_report((dir / "x.json").string()), std::runtime_error);
  std::ofstream(dir / "y.json") << "{broken";
  EXPECT_THROW(make_report((dir / "y.json").string()), std::runtime_error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kernelblaster::report
