// The report of a build tree, from a tree laid out as kernelblaster_optimize()
// lays it out: build steps' records, results cache, lockfile, gate verdicts.
#include "report/build_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "build_step/build_record.h"
#include "build_step/lockfile.h"
#include "build_step/results_cache.h"
#include "common/sha256.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/report.h"

namespace kernelblaster::report {
namespace {

namespace fs = std::filesystem;
using namespace kernelblaster::build_step;

const GpuFingerprint kH200{"NVIDIA H200", 9, 0, 132, 13};
const GpuFingerprint kH100{"NVIDIA H100 80GB HBM3", 9, 0, 132, 13};

class BuildReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "kb-build-report-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    m_root = tmpl;
    write("build/CMakeCache.txt", "# a build tree\n");
    write("build/kernelblaster_generated/kernel_launches/recorded.stamp", "");
  }
  void TearDown() override { fs::remove_all(m_root); }

  std::string path(const std::string& rel) const { return (m_root / rel).string(); }
  std::string write(const std::string& rel, const std::string& text) const {
    fs::create_directories((m_root / rel).parent_path());
    std::ofstream(m_root / rel) << text;
    return path(rel);
  }

  TunedResult result(const std::string& source, const std::string& key, const GpuFingerprint& gpu, double speedup) {
    TunedResult r;
    r.source = source;
    r.key = key;
    r.gpu = gpu;
    r.improved = speedup > 1;
    r.speedup = speedup;
    r.config = {{"BLOCK_SIZE", "128"}};
    r.flags = {"-use_fast_math"};
    r.measured_at = "2026-11-26T10:00:00Z";
    return r;
  }

  // One source's build step as the build tree keeps it; returns its compiled source.
  std::string step(const std::string& target, const std::string& name, const std::string& action, BuildCause cause,
                   const std::string& key, std::optional<TunedResult> r, const std::string& line,
                   const std::string& remote = "") {
    BuildRequest req;
    req.target = target;
    req.source = write("proj/src/" + name, "__global__ void k() {}\n");
    req.out = write("build/kernelblaster_generated/" + target + "/src/" + name, "compiled " + name + "\n");
    req.lockfile = path("proj/kernelblaster.lock.json");
    req.cache_dir = path("cache");
    BuildReport rep;
    build_action_from_name(action, &rep.action);
    rep.cause = cause;
    rep.origin = rep.action != BuildAction::applied ? ResultOrigin::none
                 : remote.empty()                   ? ResultOrigin::cache
                                                    : ResultOrigin::remote_storage;
    rep.remote = remote;
    rep.key = key;
    rep.selector = kH200.id();
    rep.line = line;
    rep.result = r;
    write("build/kernelblaster_generated/" + target + "/src/" + name + ".stamp", build_record_text(req, rep));
    return req.out;
  }

  void gate(const std::string& out, const std::string& check, int code, const std::string& verdict,
            const std::string& judged_text) {
    GateRecord g{check, code, verdict, check == "speed" ? 1.31 : 0, "NVIDIA H200", "2026-11-27T01:00:00Z",
                 sha256_hex(judged_text)};
    std::ofstream(gate_record_path(out, check)) << gate_record_text(g);
  }

  std::string markdown() { return to_markdown(build_report(path("build"))); }

  fs::path m_root;
};

// Issue 74: a result fetched from remote storage is named with the
// storage's URL, not as the cache's (where the build also keeps a copy).
TEST_F(BuildReportTest, AResultFromRemoteStorageIsNamedWithItsUrl) {
  step("app", "a.cu", "applied", BuildCause::applied, "ka", result("src/a.cu", "ka", kH200, 1.30),
       "kernelblaster: a.cu: applied tuned result for NVIDIA H200 from remote storage http://storage.test (1.30x)",
       "http://storage.test");
  const std::string md = markdown();
  EXPECT_NE(md.find("| app | a.cu | tuned (from remote storage http://storage.test) |"), std::string::npos) << md;
}

TEST_F(BuildReportTest, SaysPerSourceWhatWasCompiledWhyAndWhatTheGatesSaid) {
  ResultsCache cache(path("cache"), 1 << 20);
  cache.store(result("src/a.cu", "ka", kH200, 1.30));
  cache.store(result("src/a.cu", "ka", kH100, 1.12));
  cache.store(result("src/a.cu", "older-key", kH100, 2.0));  // another key: not this source as it is now
  const std::string a = step("app", "a.cu", "applied", BuildCause::applied, "ka", result("src/a.cu", "ka", kH200, 1.30),
                             "kernelblaster: a.cu: applied tuned result for NVIDIA H200 from the cache (1.30x)");
  gate(a, "correctness", 0, "PASS", "compiled a.cu\n");
  gate(a, "speed", 0, "PASS: 1.310x", "an earlier compiled a.cu\n");  // judged another text: stale

  update_lockfile(path("proj/kernelblaster.lock.json"), result("src/b.cu", "kb-old", kH200, 1.5));
  update_lockfile(path("proj/kernelblaster.lock.json"), result("src/a.cu", "ka", kH200, 1.30));  // the cache's measurement
  TunedResult h100_locked = result("src/a.cu", "ka", kH100, 1.15);
  h100_locked.measured_at = "2026-11-20T10:00:00Z";  // another measurement than the cache's
  update_lockfile(path("proj/kernelblaster.lock.json"), h100_locked);
  step("app", "b.cu", "original", BuildCause::tuning_failed, "kb", std::nullopt,
       "kernelblaster: b.cu: tuning failed (nvcc died); using the original");
  step("tools", "c.cu", "recording", BuildCause::recording, "kc", std::nullopt, "kernelblaster: c.cu: no harness yet");
  write("build/kernelblaster_generated/app/src/old.cu.stamp", "0123\nkernelblaster: old.cu: ...\n");

  const std::string md = markdown();
  EXPECT_NE(md.find("3 sources in 2 targets: 1 compiled tuned, 1 a recording shim, 1 compiled as written (1 because "
                    "something failed)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| app | a.cu | tuned (from the cache) | a known result for this GPU | 1.300x | NVIDIA H200 |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| app | b.cu | the original | tuning failed | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| tools | c.cu | a recording shim (calling the original) | recording calls for a harness |"),
            std::string::npos) << md;
  // Results per GPU: both GPUs' cache entries for a.cu's key, b.cu's stale lockfile entry.
  EXPECT_NE(md.find("| a.cu | NVIDIA H100 80GB HBM3 (" + kH100.id() + ") | 1.120x | cache | BLOCK_SIZE=128 -use_fast_math |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| a.cu | NVIDIA H200 (" + kH200.id() + ") | 1.300x | cache, lockfile |"), std::string::npos) << md;
  EXPECT_NE(md.find("| a.cu | NVIDIA H100 80GB HBM3 (" + kH100.id() + ") | 1.150x | lockfile | BLOCK_SIZE=128 -use_fast_math | 2026-11-20"),
            std::string::npos) << md;
  EXPECT_EQ(md.find("2.000x"), std::string::npos) << "an entry of another key is shown";
  EXPECT_NE(md.find("| b.cu | NVIDIA H200 (" + kH200.id() + ") | 1.500x | lockfile (stale) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| c.cu | - | - | no result on any GPU |"), std::string::npos) << md;
  // Gates: a.cu's speed verdict judged an earlier text.
  EXPECT_NE(md.find("| app | a.cu | PASS | PASS: 1.310x (judged an earlier build's source) | NVIDIA H200 |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| app | b.cu | not run | not run |"), std::string::npos) << md;
  EXPECT_NE(md.find("old.cu.stamp: not a build step's record"), std::string::npos) << md;
  EXPECT_EQ(md.find("recorded.stamp"), std::string::npos) << md;
  // The page colours a tuned source green and a failure red.
  const std::string html = to_html(build_report(path("build")));
  EXPECT_NE(html.find("<td class=\"good\">tuned (from the cache)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"bad\">tuning failed</td>"), std::string::npos);
  EXPECT_NE(html.find("data-strip=\"sources\" data-cells=\"3\""), std::string::npos);
}

// Each cell of the page's strip names its source, and a tree last built on
// a machine without a GPU says so instead of looking like "nothing beat the
// original".
TEST_F(BuildReportTest, TheStripNamesItsSourcesAndAMachineWithoutAGpuIsSaid) {
  step("app", "a.cu", "original", BuildCause::no_gpu, "ka", std::nullopt,
       "kernelblaster: a.cu: no GPU and no cached result for NVIDIA H200; using the original");
  step("app", "b.cu", "original", BuildCause::no_gain, "kb", std::nullopt,
       "kernelblaster: b.cu: nothing beat the original");
  const std::string html = to_html(build_report(path("build")));
  EXPECT_NE(html.find("class=\"neutral labelled\" title=\"app / a.cu: the original\">app / a.cu</span>"),
            std::string::npos) << html;
  EXPECT_NE(markdown().find("The machine that last built 1 of them had no usable GPU"), std::string::npos);
}

// A source whose last tuning run here had this GPU's ceilings is drawn
// under its roofline; one whose log has none, or no log, is not.
TEST_F(BuildReportTest, DrawsEachTunedSourceUnderItsRoofline) {
  const std::string a = step("app", "a.cu", "tuned", BuildCause::tuned, "ka", result("src/a.cu", "ka", kH200, 1.30),
                             "kernelblaster: a.cu: tuned on NVIDIA H200: 1.30x");
  step("app", "b.cu", "original", BuildCause::no_gain, "kb", std::nullopt, "kernelblaster: b.cu: nothing beat the original");
  const nlohmann::json metrics = {{"arithmetic_intensity", 0.5}, {"achieved_gflops", 1000},
                                  {"achieved_bandwidth_gbs", 2000}, {"bandwidth_pct_of_peak", 50},
                                  {"flops_pct_of_peak", 2}};
  std::ofstream(a + ".tuned.cu.log.json") << nlohmann::json{{"gpu", "NVIDIA H200"}, {"date", "2026-11-29T02:00:00Z"},
                                                            {"best", "BLOCK_SIZE=128"}, {"best_speedup", 1.3},
                                                            {"metrics", metrics}}
                                                 .dump();
  const std::string html = to_html(build_report(path("build")));
  EXPECT_NE(html.find("data-chart=\"roofline-app-a.cu\""), std::string::npos) << html;
  EXPECT_NE(html.find("app/a.cu under the roofline of NVIDIA H200 (its last tuning run here, 2026-11-29T02:00:00Z)"),
            std::string::npos);
  EXPECT_NE(html.find("data-x=\"0.5\" data-y=\"1300\""), std::string::npos);  // the winner, 1.3 times higher
  EXPECT_EQ(html.find("roofline-app-b.cu"), std::string::npos);
  // A log without ceilings draws nothing.
  std::ofstream(a + ".tuned.cu.log.json") << nlohmann::json{{"metrics", {{"achieved_gflops", 1000}}}}.dump();
  EXPECT_EQ(to_html(build_report(path("build"))).find("Under the roofline"), std::string::npos);
}

TEST_F(BuildReportTest, AnUnreadableLockfileIsSaidInThePage) {
  write("proj/kernelblaster.lock.json", "{torn");
  step("app", "a.cu", "original", BuildCause::no_gpu, "ka", std::nullopt, "kernelblaster: a.cu: no GPU");
  const std::string md = markdown();
  EXPECT_NE(md.find("| a.cu | - | - | the lockfile cannot be read: "), std::string::npos) << md;
}

TEST_F(BuildReportTest, ATreeWithNoStepYetSaysSoAndMakeReportFindsTheKind) {
  EXPECT_NE(markdown().find("No KernelBlaster build step has run in this build tree yet"), std::string::npos);
  Report r = make_report(path("build"));
  EXPECT_EQ(r.kind, Kind::build_tree);
  EXPECT_EQ(r.html_path, path("build") + "/kernelblaster_report.html");
  std::string why;
  EXPECT_EQ(refresh_report(path("build"), &why), r.html_path);
  EXPECT_TRUE(fs::exists(path("build/kernelblaster_report.md")));
  EXPECT_EQ(refresh_report(path("no-such-tree"), &why), "");
  EXPECT_NE(why.find("no-such-tree"), std::string::npos) << why;
}

}  // namespace
}  // namespace kernelblaster::report
