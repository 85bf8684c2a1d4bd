#include "judge/judge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/file_util.h"
#include "judge/early_look.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

// Builds a reference and a candidate report with dumps on disk, as two
// harness processes would have left them.
class JudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("kb-judge-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_root / "ref");
    fs::create_directories(m_root / "cand");
    for (HarnessReport* r : {&m_ref, &m_cand}) {
      r->harness = "t";
      r->sizes = {{"s", {{"n", 4}}, false}};
      BufferDecl y;
      y.name = "y";
      y.dtype = "f32";
      y.role = "output";
      y.tolerance = {1e-5, 1e-5, 1e-4};
      r->buffers = {y};
    }
  }
  void TearDown() override { fs::remove_all(m_root); }

  static std::vector<float> answer(std::uint64_t seed) {
    return {1.0f * seed, 2.0f * seed + 1, 3.0f, 4.0f + seed};
  }
  void add_run(HarnessReport& r, const std::string& dir, std::uint64_t seed, const std::vector<float>& y,
               std::vector<std::string> modified = {}) {
    RunReport run;
    run.index = static_cast<int>(r.runs.size());
    run.size = 0;
    run.seed = seed;
    OutputDump d{"y", "run" + std::to_string(run.index) + "_y.bin", static_cast<std::int64_t>(y.size()), 0xFF};
    write_file_atomic((m_root / dir / d.file).string(),
                      std::string(reinterpret_cast<const char*>(y.data()), y.size() * sizeof(float)));
    run.outputs = {d};
    run.inputs_modified = std::move(modified);
    r.runs.push_back(run);
  }
  // The standard plan: seeds 1, 2, 3, then 1 again.
  void reference() {
    for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_ref, "ref", s, answer(s));
  }
  Verdict judge() {
    m_checks.clear();
    return judge_correctness(m_ref, (m_root / "ref").string(), m_cand, (m_root / "cand").string(), &m_checks);
  }
  static float poison() {
    float f;
    std::uint32_t bits = 0xFFFFFFFF;
    std::memcpy(&f, &bits, 4);
    return f;
  }

  fs::path m_root;
  HarnessReport m_ref, m_cand;
  std::vector<RunCheck> m_checks;
};

TEST_F(JudgeTest, HonestCandidatePasses) {
  reference();
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, answer(s));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::ok) << v.detail;
  ASSERT_EQ(m_checks.size(), 4u);
  EXPECT_TRUE(m_checks[3].passed);
}

TEST_F(JudgeTest, UnwrittenElements) {
  reference();
  for (std::uint64_t s : {1, 2, 3, 1}) {
    auto y = answer(s);
    y[3] = poison();
    add_run(m_cand, "cand", s, y);
  }
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::unwritten_output);
  EXPECT_NE(v.detail.find("1 unwritten"), std::string::npos) << v.detail;
}

TEST_F(JudgeTest, ModifiedInputWinsOverEverything) {
  reference();
  add_run(m_cand, "cand", 1, answer(1));
  add_run(m_cand, "cand", 2, answer(2), {"x"});
  add_run(m_cand, "cand", 3, {0, 0, 0, 0});
  add_run(m_cand, "cand", 1, answer(1));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::input_modified);
  EXPECT_NE(v.detail.find("'x'"), std::string::npos);
}

TEST_F(JudgeTest, AnswerOfAnEarlierCallIsACachedResult) {
  reference();
  add_run(m_cand, "cand", 1, answer(1));
  add_run(m_cand, "cand", 2, answer(1));  // same pointers, stale answer
  add_run(m_cand, "cand", 3, answer(1));
  add_run(m_cand, "cand", 1, answer(1));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::cached_result) << v.detail;
}

// Outputs larger than the stale-answer check's sample (4 blocks of 16384):
// the sample decides only whether to read both dumps whole.
TEST_F(JudgeTest, StaleAnswerIsFoundInLargeOutputs) {
  const std::int64_t n = 200003;
  auto big = [&](std::uint64_t seed) {
    std::vector<float> y(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = std::sin(0.001f * i * seed) + 0.5f * seed;
    return y;
  };
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_ref, "ref", s, big(s));
  add_run(m_cand, "cand", 1, big(1));
  add_run(m_cand, "cand", 2, big(1));
  add_run(m_cand, "cand", 3, big(1));
  add_run(m_cand, "cand", 1, big(1));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::cached_result) << v.detail;
  EXPECT_NE(v.detail.find("the answer of run 0"), std::string::npos) << v.detail;
}

TEST_F(JudgeTest, LargeOutputsThatOnlyShareTheSampleAreWrongNotStale) {
  const std::int64_t n = 200003;
  auto big = [&](std::uint64_t seed) {
    std::vector<float> y(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = std::cos(0.002f * i * seed) + seed;
    return y;
  };
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_ref, "ref", s, big(s));
  add_run(m_cand, "cand", 1, big(1));
  // Run 0's answer in the sampled blocks only (the first 16384 elements are
  // one of them), garbage between: not the earlier answer, just wrong.
  std::vector<float> mixed = big(1);
  for (std::int64_t i = 20000; i < 50000; ++i) mixed[static_cast<std::size_t>(i)] = -7.0f;
  add_run(m_cand, "cand", 2, mixed);
  add_run(m_cand, "cand", 3, mixed);
  add_run(m_cand, "cand", 1, big(1));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::wrong_result) << v.detail;
}

TEST_F(JudgeTest, ZerosInLargeOutputsAreWrongResult) {
  const std::int64_t n = 200003;
  std::vector<float> y(static_cast<std::size_t>(n));
  for (std::uint64_t s : {1, 2, 3, 1}) {
    for (std::int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = 1.0f + 0.01f * s * (i % 97);
    add_run(m_ref, "ref", s, y);
  }
  std::vector<float> zeros(static_cast<std::size_t>(n), 0.0f);
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, zeros);
  EXPECT_EQ(judge().status, Status::wrong_result);
}

TEST_F(JudgeTest, NothingWrittenOnALaterCallIsACachedResult) {
  reference();
  add_run(m_cand, "cand", 1, answer(1));
  std::vector<float> untouched(4, poison());
  add_run(m_cand, "cand", 2, untouched);
  add_run(m_cand, "cand", 3, untouched);
  add_run(m_cand, "cand", 1, untouched);
  EXPECT_EQ(judge().status, Status::cached_result);
}

TEST_F(JudgeTest, SameSeedDisagreeingIsNondeterministic) {
  reference();
  add_run(m_cand, "cand", 1, answer(1));
  add_run(m_cand, "cand", 2, answer(2));
  add_run(m_cand, "cand", 3, answer(3));
  auto y = answer(1);
  y[2] += 1.0f;
  add_run(m_cand, "cand", 1, y);
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::nondeterministic) << v.detail;
}

TEST_F(JudgeTest, WrongEverywhereIsWrongResult) {
  reference();
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, {0, 0, 0, 0});
  EXPECT_EQ(judge().status, Status::wrong_result);
}

TEST_F(JudgeTest, MissingRunsAreACrash) {
  reference();
  add_run(m_cand, "cand", 1, answer(1));
  EXPECT_EQ(judge().status, Status::crashed);
}

// The candidate's report so far, as its process writes it once its
// correctness runs are done (kCorrectnessReportFile).
class EarlyJudgeTest : public JudgeTest {
 protected:
  void write_interim() {
    write_file_atomic((m_root / "cand" / kCorrectnessReportFile).string(), report_to_json(m_cand));
  }
  std::optional<Verdict> early() {
    m_checks.clear();
    return judge_correctness_early(m_ref, (m_root / "ref").string(), (m_root / "cand").string(),
                                   calibrate(m_ref, (m_root / "ref").string()), &m_checks);
  }
};

TEST_F(EarlyJudgeTest, AWrongFirstRunIsAFailureBeforeTheRest) {
  reference();
  add_run(m_cand, "cand", 1, {0, 0, 0, 0});
  add_run(m_cand, "cand", 2, answer(2));
  write_interim();
  std::optional<Verdict> v = early();
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status, Status::wrong_result) << v->detail;
  ASSERT_EQ(m_checks.size(), 2u);
  EXPECT_FALSE(m_checks[0].passed);
}

TEST_F(EarlyJudgeTest, RunsThatPassDecideNothing) {
  reference();
  add_run(m_cand, "cand", 1, answer(1));
  add_run(m_cand, "cand", 2, answer(2));
  write_interim();
  EXPECT_FALSE(early().has_value());
}

TEST_F(EarlyJudgeTest, NoUsableReportDecidesNothing) {
  reference();
  add_run(m_cand, "cand", 1, {0, 0, 0, 0});
  EXPECT_FALSE(early().has_value()) << "not written yet";
  write_file_atomic((m_root / "cand" / kCorrectnessReportFile).string(), "{\"runs\": [");
  EXPECT_FALSE(early().has_value()) << "torn";
  for (std::uint64_t s : {1, 2, 3, 1, 2}) add_run(m_cand, "cand", s, {0, 0, 0, 0});
  write_interim();
  EXPECT_FALSE(early().has_value()) << "more runs than the original made";
}

TEST_F(EarlyJudgeTest, TheLookJudgesOnceWhenTheReportAppears) {
  reference();
  const Calibration cal = calibrate(m_ref, (m_root / "ref").string());
  EarlyLook look(m_ref, (m_root / "ref").string(), (m_root / "cand").string(), cal);
  EXPECT_FALSE(look.failed());
  add_run(m_cand, "cand", 1, {0, 0, 0, 0});
  write_interim();
  EXPECT_TRUE(look.failed());
  EXPECT_EQ(look.verdict().status, Status::wrong_result);
  EXPECT_NE(look.verdict().detail.find("stopped before its timing"), std::string::npos) << look.verdict().detail;
  EXPECT_EQ(look.checks().size(), 1u);
}

TEST(JudgeProcess, MapsHowTheProcessEnded) {
  ProcessResult p;
  p.timed_out = true;
  EXPECT_EQ(judge_process(p, nullptr).status, Status::timed_out);
  p = {};
  // Killed for its memory: a status of its own, not a crash, whatever the kill looked like.
  p.memory_exceeded = true;
  p.signaled = true;
  p.signal = 9;
  p.peak_resident_bytes = std::uint64_t{9} << 30;
  p.resident_limit_bytes = std::uint64_t{8} << 30;
  Verdict oom = judge_process(p, nullptr);
  EXPECT_EQ(oom.status, Status::out_of_memory);
  EXPECT_NE(oom.detail.find("9.0 GiB resident, over its 8.0 GiB limit"), std::string::npos) << oom.detail;
  p = {};
  p.signaled = true;
  p.signal = 11;
  EXPECT_EQ(judge_process(p, nullptr).status, Status::crashed);
  p = {};
  p.exit_code = 3;
  HarnessReport r;
  r.error = {HarnessErrorKind::cuda_error, "kernel execution: cudaErrorIllegalAddress", 2, "correctness"};
  Verdict v = judge_process(p, &r);
  EXPECT_EQ(v.status, Status::crashed);
  EXPECT_NE(v.detail.find("run 2"), std::string::npos);
  r.error.kind = HarnessErrorKind::launch_error;
  EXPECT_EQ(judge_process(p, &r).status, Status::launch_failed);
  r.error.kind = HarnessErrorKind::harness_error;
  EXPECT_EQ(judge_process(p, &r).status, Status::harness_error);
  EXPECT_EQ(judge_process(p, nullptr).status, Status::crashed);
  p.exit_code = 0;
  r.error = {};
  EXPECT_EQ(judge_process(p, &r).status, Status::ok);
}

TEST(JudgeTiming, WorkOutsideTheTimedRegion) {
  HarnessReport r;
  r.sizes = {{"s", {}, false}};
  TimingReport t;
  t.runs = 100;
  t.median_ns = 10000;
  t.untimed_runs = 90;
  t.untimed_detail = "run 0: hidden";
  r.timings = {t};
  EXPECT_EQ(judge_untimed(r).status, Status::untimed_work);
  r.timings[0].untimed_runs = 0;
  r.timings[0].foreign_activities = 1;
  EXPECT_EQ(judge_untimed(r).status, Status::untimed_work);
  r.timings[0].foreign_activities = 0;
  EXPECT_EQ(judge_untimed(r).status, Status::ok);
  r.foreign_activities = 2;  // left behind by a correctness run
  r.foreign_detail = "GPU work launched by another thread outside the timed region";
  Verdict v = judge_untimed(r);
  EXPECT_EQ(v.status, Status::untimed_work);
  EXPECT_NE(v.detail.find("correctness runs"), std::string::npos);
}

TEST(JudgeIsolation, ADriverThatScrubbedNothingCannotBeVouchedFor) {
  HarnessReport r;
  r.harness = "kernelbench";
  r.runs.resize(3);
  r.isolated_bytes = 0;
  const Verdict v = judge_isolation(r);
  EXPECT_EQ(v.status, Status::tool_error);
  EXPECT_NE(v.detail.find("PYTORCH_NO_CUDA_MEMORY_CACHING"), std::string::npos) << v.detail;
  r.isolated_bytes = 2 << 20;
  EXPECT_EQ(judge_isolation(r).status, Status::ok);
  r.isolated_bytes = 0;
  r.notes = {"isolation unavailable: the driver's allocator cannot be asked for its memory"};
  EXPECT_EQ(judge_isolation(r).status, Status::ok);  // said already; nothing was promised
  HarnessReport native;
  native.runs.resize(3);
  EXPECT_EQ(judge_isolation(native).status, Status::ok);  // a native harness hands out its own buffers
}

// One size timed on 100 fresh inputs and 15 repeated ones.
HarnessReport repeat_probe(double fresh_ns, double repeat_ns) {
  HarnessReport r;
  r.sizes = {{"s", {}, false}};
  TimingReport t;
  t.runs = 100;
  t.median_ns = fresh_ns;
  t.repeat_runs = 15;
  t.repeat_median_ns = repeat_ns;
  r.timings = {t};
  return r;
}

TEST(JudgeTiming, FasterOnRepeatedInputsIsCaching) {
  HarnessReport r = repeat_probe(500000, 20000);
  EXPECT_EQ(judge_timing(HarnessReport{}, r).status, Status::cached_result);
  r.timings[0].repeat_median_ns = 495000;  // noise, not caching
  EXPECT_EQ(judge_timing(HarnessReport{}, r).status, Status::ok);
  r.timings[0].median_ns = 3000;  // tiny kernels: a microsecond is not evidence
  r.timings[0].repeat_median_ns = 2000;
  EXPECT_EQ(judge_timing(HarnessReport{}, r).status, Status::ok);
}

// A content-keyed cache that answers repeated inputs without launching
// anything: the repeat runs' GPU time is 0, which the test above skipped.
TEST(JudgeTiming, RepeatedInputsThatLaunchNothingAreCaching) {
  HarnessReport original = repeat_probe(500000, 480000), cand = repeat_probe(500000, 0);
  const Verdict v = judge_timing(original, cand);
  EXPECT_EQ(v.status, Status::cached_result);
  EXPECT_NE(v.detail.find("calls on repeated inputs launched no GPU work"), std::string::npos) << v.detail;
  // Where the original launches nothing on repeats either, it is the harness's way, not a cache.
  original.timings[0].repeat_median_ns = 0;
  EXPECT_EQ(judge_timing(original, cand).status, Status::ok);
}

// Work the GPU's timeline cannot see: a launcher that computes on the host
// (or waits for another process) before a token launch has a short span
// and a long event bracket.
TEST(JudgeTiming, TimeBetweenTheEventsThatIsNoGpuWorkIsUntimed) {
  HarnessReport original = repeat_probe(500000, 500000), cand = repeat_probe(2000, 2000);
  original.timings[0].method = cand.timings[0].method = "cupti";
  original.timings[0].event_median_ns = 508000;  // launch latency around the work
  cand.timings[0].event_median_ns = 495000;      // the answer made on the host, one tiny kernel timed
  const Verdict v = judge_timing(original, cand);
  EXPECT_EQ(v.status, Status::untimed_work);
  EXPECT_NE(v.detail.find("the calls took 495.0 us between their events but ran 2.0 us of GPU work"), std::string::npos)
      << v.detail;
  // An honest faster call: its events shrink with its GPU work.
  cand.timings[0].event_median_ns = 9000;
  EXPECT_EQ(judge_timing(original, cand).status, Status::ok);
  // A few microseconds more off the GPU than the original (a cudaMalloc, a
  // host-side argument) is within the slack.
  cand.timings[0].event_median_ns = 2000 + 8000 + 15000;
  EXPECT_EQ(judge_timing(original, cand).status, Status::ok);
  // Event timing alone (no CUPTI) has nothing to compare.
  cand.timings[0].method = "events";
  cand.timings[0].event_median_ns = 495000;
  EXPECT_EQ(judge_timing(original, cand).status, Status::ok);
}

TEST(CompareTiming, GeometricMeanSpeedup) {
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"a", {}, false}, {"b", {}, false}};
  TimingReport t;
  t.size = 0;
  t.median_ns = 400;
  ref.timings.push_back(t);
  t.median_ns = 100;
  cand.timings.push_back(t);
  t.size = 1;
  t.median_ns = 100;
  ref.timings.push_back(t);
  cand.timings.push_back(t);
  double speedup = 0;
  auto rows = compare_timing(ref, cand, &speedup);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].speedup, 4.0);
  EXPECT_DOUBLE_EQ(speedup, 2.0);
  EXPECT_EQ(rows[0].basis, "span");  // no busy times: CUDA events only
}

TimingReport timed(double span_ns, double busy_ns) {
  TimingReport t;
  t.median_ns = span_ns;
  t.busy_median_ns = busy_ns;
  return t;
}

TEST(CallCosts, BusyTimeDecidesAndTheHostsIdleNoiseDoesNot) {
  // The same launcher in two processes (level2/029 on an H100): the GPU is
  // busy 4.6 us of a span of 12 or 18 us; the rest waits for the host.
  auto [r, c] = call_costs(timed(12000, 4600), timed(18000, 4610));
  EXPECT_TRUE(c.busy);
  EXPECT_DOUBLE_EQ(c.charged_idle_ns, 0);
  EXPECT_NEAR(r.ns / c.ns, 1.0, 0.01);
}

TEST(CallCosts, IdleTimeBeyondTheOriginalsIsCharged) {
  // A candidate that does half the work on the host between two kernels:
  // 10 us busy, 15 us idle, against a 20 us kernel with no idle time. The
  // allowance is 2 x 0 + 5% of 20 us = 1 us; 14 us are charged.
  auto [r, c] = call_costs(timed(20000, 20000), timed(25000, 10000));
  EXPECT_DOUBLE_EQ(c.charged_idle_ns, 14000);
  EXPECT_DOUBLE_EQ(c.ns, 24000);
  EXPECT_LT(r.ns / c.ns, 1.0);
  // An honest fused kernel with no idle time keeps its whole gain.
  auto [r2, c2] = call_costs(timed(20000, 20000), timed(10000, 10000));
  EXPECT_DOUBLE_EQ(r2.ns / c2.ns, 2.0);
}

TEST(CallCosts, TheSpreadIsThatOfTheBasis) {
  TimingReport ref = timed(30000, 5000), cand = timed(30000, 5000);
  cand.q1_ns = 22000;  // the span's spread is the host's
  cand.q3_ns = 38000;
  cand.busy_q1_ns = 4950;
  cand.busy_q3_ns = 5050;
  auto [r, c] = call_costs(ref, cand);
  EXPECT_DOUBLE_EQ(c.q1_ns, 4950);
  EXPECT_DOUBLE_EQ(c.q3_ns, 5050);
  ref.busy_median_ns = 0;  // CUDA events only: the span and its spread
  auto [r2, c2] = call_costs(ref, cand);
  EXPECT_DOUBLE_EQ(c2.q1_ns, 22000);
  EXPECT_DOUBLE_EQ(c2.q3_ns, 38000);
}

TEST(CompareTiming, SpeedupUsesBusyTimeWhereBothSidesHaveIt) {
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"a", {}, false}};
  ref.timings = {timed(30000, 5000)};
  cand.timings = {timed(24000, 5000)};  // the span moved with the host, the GPU's work did not
  double speedup = 0;
  auto rows = compare_timing(ref, cand, &speedup);
  EXPECT_DOUBLE_EQ(speedup, 1.0);
  EXPECT_EQ(rows[0].basis, "busy");
  EXPECT_DOUBLE_EQ(rows[0].busy_median_us, 5.0);
  EXPECT_DOUBLE_EQ(rows[0].reference_busy_median_us, 5.0);
}

}  // namespace
}  // namespace kernelblaster
