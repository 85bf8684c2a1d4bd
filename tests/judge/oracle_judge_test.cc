// The judges with an oracle, as KernelBench drivers bring one: torch's
// result for the same inputs beside the original's (init.cu) output. The
// calibration (judge/calibration.h) widens tolerances by what the original
// itself does; these tests pin that honest work passes where the original
// is not torch's answer, and that zeros, constants and lowered precision
// still fail, by orders of magnitude where the original is good.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "common/file_util.h"
#include "judge/calibration.h"
#include "runtime/compare.h"
#include "judge/judge.h"

namespace fs = std::filesystem;

namespace kernelblaster {
namespace {

std::uint16_t to_half(float f) {
  // Round to nearest even, normal range and zero only (what the tests use).
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::int32_t exp = static_cast<std::int32_t>((x >> 23) & 0xFF) - 127 + 15;
  std::uint32_t man = x & 0x7FFFFFu;
  if (exp <= 0) return static_cast<std::uint16_t>(sign);
  std::uint32_t h = sign | (static_cast<std::uint32_t>(exp) << 10) | (man >> 13);
  std::uint32_t rest = man & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(h);
}

float bf16_round(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  x = (x + 0x7FFFu + ((x >> 16) & 1u)) & 0xFFFF0000u;
  std::memcpy(&f, &x, 4);
  return f;
}

// A softmax-like row of positive values, different per seed.
std::vector<float> truth(std::uint64_t seed) {
  const int n = 4096;
  std::vector<float> v(static_cast<std::size_t>(n));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += v[static_cast<std::size_t>(i)] = static_cast<float>(std::exp(std::sin(i * 0.37 + seed) * 3));
  for (float& x : v) x = static_cast<float>(x / sum * n);  // mean 1
  return v;
}

class OracleJudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("kb-oracle-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_root / "ref");
    fs::create_directories(m_root / "cand");
    for (HarnessReport* r : {&m_ref, &m_cand}) {
      r->harness = "kernelbench";
      r->sizes = {{"default", {}, false}};
      BufferDecl y{"output", m_dtype, "output", {1e-3, 1e-3, 1e-2}, {}};
      BufferDecl x{"input", "f16", "input", {1e-3, 1e-3, 1e-2}, {}};
      r->buffers = {y, x};
    }
  }
  void TearDown() override { fs::remove_all(m_root); }

  std::string dump(const std::string& dir, const std::string& file, const std::vector<float>& values,
                   const std::string& dtype) {
    std::string bytes;
    for (float v : values) {
      if (dtype == "f16") {
        std::uint16_t h = std::isnan(v) ? 0xFFFF : to_half(v);
        bytes.append(reinterpret_cast<const char*>(&h), 2);
      } else if (dtype == "i64") {
        std::int64_t i = static_cast<std::int64_t>(v);
        bytes.append(reinterpret_cast<const char*>(&i), 8);
      } else {
        bytes.append(reinterpret_cast<const char*>(&v), 4);
      }
    }
    write_file_atomic((m_root / dir / file).string(), bytes);
    return file;
  }

  RunReport& add_run(HarnessReport& r, const std::string& dir, std::uint64_t seed, const std::vector<float>& out,
                     const std::vector<float>& oracle, std::uint64_t input_sum = 0) {
    RunReport run;
    run.index = static_cast<int>(r.runs.size());
    run.seed = seed;
    std::string base = "run" + std::to_string(run.index);
    run.outputs = {{"output", dump(dir, base + "_output.bin", out, m_dtype), static_cast<std::int64_t>(out.size()),
                    static_cast<std::uint8_t>(0xFF), ""}};
    run.oracle = {{"output", dump(dir, base + "_output.oracle.bin", oracle, "f32"),
                   static_cast<std::int64_t>(oracle.size()), 0, "f32"}};
    run.driver_verdict = DriverVerdict::passed;
    run.activities = 1;
    run.repeated_pointers = run.index > 0;
    run.input_checksums["input"] = input_sum ? input_sum : seed * 7;
    r.runs.push_back(run);
    return r.runs.back();
  }

  // The standard plan: seeds 1, 2, 3, then 1 again; `original(seed)` and the oracle per seed.
  template <class Original, class Oracle>
  void reference(Original original, Oracle oracle) {
    for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_ref, "ref", s, original(s), oracle(s));
  }
  template <class Candidate>
  void candidate(Candidate c) {
    for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, c(s), truth(s));
  }
  Verdict judge() {
    m_checks.clear();
    m_cal = calibrate(m_ref, (m_root / "ref").string());
    Verdict r = judge_reference(m_cal);
    if (r.status != Status::ok) return r;
    return judge_correctness(m_ref, (m_root / "ref").string(), m_cand, (m_root / "cand").string(), m_cal,
                             &m_checks);
  }

  fs::path m_root;
  std::string m_dtype = "f16";
  HarnessReport m_ref, m_cand;
  Calibration m_cal;
  std::vector<RunCheck> m_checks;
};

// An original as good as torch, give or take fp16 rounding: the judges are
// as tight as the dtype's default.
TEST_F(OracleJudgeTest, TheOriginalAgainstItselfPasses) {
  reference(truth, truth);
  candidate(truth);
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::ok) << v.detail;
  ASSERT_EQ(m_cal.outputs.size(), 1u);
  EXPECT_TRUE(m_cal.outputs[0].has_oracle);
  EXPECT_LT(m_cal.outputs[0].oracle_rel_l2, 1e-3);  // fp16 rounding of the truth
  EXPECT_DOUBLE_EQ(m_cal.outputs[0].vs_oracle.rel_l2, 1e-3);
  ASSERT_EQ(m_checks.size(), 4u);
  EXPECT_EQ(m_checks[0].oracle_errors.size(), 1u);
}

TEST_F(OracleJudgeTest, ZerosFailByOrdersOfMagnitude) {
  reference(truth, truth);
  candidate([](std::uint64_t s) { return std::vector<float>(truth(s).size(), 0.0f); });
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::wrong_result) << v.detail;
  EXPECT_GT(m_checks[0].errors[0].rel_l2 / m_cal.outputs[0].vs_original.rel_l2, 100);
}

TEST_F(OracleJudgeTest, AConstantOutputFails) {
  reference(truth, truth);
  candidate([](std::uint64_t s) { return std::vector<float>(truth(s).size(), 1.0f); });  // the mean of every row
  EXPECT_EQ(judge().status, Status::wrong_result);
}

TEST_F(OracleJudgeTest, LoweredPrecisionIsInaccurate) {
  reference(truth, truth);
  candidate([](std::uint64_t s) {
    std::vector<float> v = truth(s);
    for (float& x : v) x = bf16_round(x);
    return v;
  });
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::inaccurate) << v.detail;
}

// The published 028_HardSigmoid: init.cu computes 0.2x + 0.5 where torch
// computes x/6 + 0.5. The original is the baseline, torch the yardstick.
std::vector<float> hard_sigmoid(std::uint64_t seed, double slope) {
  std::vector<float> v(2048);
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = 4 * std::sin(i * 0.61 + seed);
    v[i] = static_cast<float>(std::min(1.0, std::max(0.0, slope * x + 0.5)));
  }
  return v;
}

TEST_F(OracleJudgeTest, AnOriginalFarFromTorchIsTheBaseline) {
  auto original = [](std::uint64_t s) { return hard_sigmoid(s, 0.2); };
  auto oracle = [](std::uint64_t s) { return hard_sigmoid(s, 1.0 / 6); };
  reference(original, oracle);
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, original(s), oracle(s));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::ok) << v.detail;
  EXPECT_GT(m_cal.outputs[0].oracle_rel_l2, 1e-2);
}

TEST_F(OracleJudgeTest, ACandidateCloserToTorchThanTheOriginalPasses) {
  auto original = [](std::uint64_t s) { return hard_sigmoid(s, 0.2); };
  auto oracle = [](std::uint64_t s) { return hard_sigmoid(s, 1.0 / 6); };
  reference(original, oracle);
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, oracle(s), oracle(s));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::ok) << v.detail;
}

TEST_F(OracleJudgeTest, FurtherFromTorchThanTheFactorAllowsFails) {
  auto original = [](std::uint64_t s) { return hard_sigmoid(s, 0.2); };
  auto oracle = [](std::uint64_t s) { return hard_sigmoid(s, 1.0 / 6); };
  reference(original, oracle);
  // Three times the original's own error, in the same direction.
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, hard_sigmoid(s, 1.0 / 6 + 3 * (0.2 - 1.0 / 6)), oracle(s));
  Verdict v = judge();
  EXPECT_NE(v.status, Status::ok);
  EXPECT_NE(v.detail.find("oracle"), std::string::npos) << v.detail;
  // Zeros still fail there too.
  m_cand = m_ref;
  m_cand.runs.clear();
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, std::vector<float>(2048, 0.0f), oracle(s));
  EXPECT_EQ(judge().status, Status::wrong_result);
}

TEST_F(OracleJudgeTest, IntegerOutputsMayDifferFromTorchWhereTheOriginalDoes) {
  m_dtype = "i64";
  SetUp();
  auto oracle = [](std::uint64_t s) {
    std::vector<float> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7 + s) % 64);
    return v;
  };
  auto original = [&](std::uint64_t s) {
    std::vector<float> v = oracle(s);
    v[10] += 1;  // a tie broken the other way
    v[500] -= 1;
    return v;
  };
  m_ref.buffers[0].tolerance = m_cand.buffers[0].tolerance = {0, 0, 0};
  reference(original, oracle);
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, original(s), oracle(s));
  EXPECT_EQ(judge().status, Status::ok);
  m_cand.runs.clear();
  for (std::uint64_t s : {1, 2, 3, 1}) {
    std::vector<float> v = original(s);
    for (std::size_t i = 100; i < 150; ++i) v[i] += 1;
    add_run(m_cand, "cand", s, v, oracle(s));
  }
  EXPECT_EQ(judge().status, Status::wrong_result);
}

TEST_F(OracleJudgeTest, ANondeterministicOriginalWidensTheToleranceByItsSpread) {
  // Atomics in another order: the same seed gives answers a few ulps apart.
  auto jitter = [](std::vector<float> v, int phase) {
    for (std::size_t i = static_cast<std::size_t>(phase); i < v.size(); i += 3) v[i] *= 1.004f;
    return v;
  };
  add_run(m_ref, "ref", 1, jitter(truth(1), 0), truth(1));
  add_run(m_ref, "ref", 2, truth(2), truth(2));
  add_run(m_ref, "ref", 3, truth(3), truth(3));
  add_run(m_ref, "ref", 1, jitter(truth(1), 1), truth(1));
  for (std::uint64_t s : {1, 2, 3, 1}) add_run(m_cand, "cand", s, jitter(truth(s), 2), truth(s));
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::ok) << v.detail;
  EXPECT_GT(m_cal.outputs[0].spread_rel_l2, 0);
}

// SGEMM_CUDA's kernel 11 on an H200 (2026-11-30): tiles wider than C
// write into the next row's elements, racing with their owners, so the
// same inputs gave answers 0.097 apart (rel L2). Widened by that spread the
// tolerances would pass a candidate 10% off: such an original is refused.
TEST_F(OracleJudgeTest, AnOriginalThatDisagreesWithItselfFarBeyondRoundingIsReferenceFailed) {
  auto raced = [](std::vector<float> v) {
    for (std::size_t i = 1000; i < 1400; ++i) v[i] = -v[i];
    return v;
  };
  add_run(m_ref, "ref", 1, truth(1), truth(1));
  add_run(m_ref, "ref", 2, truth(2), truth(2));
  add_run(m_ref, "ref", 3, truth(3), truth(3));
  add_run(m_ref, "ref", 1, raced(truth(1)), truth(1));
  for (std::uint64_t s : {1, 2, 3, 1}) {
    std::vector<float> off = truth(s);
    for (float& x : off) x *= 1.1f;
    add_run(m_cand, "cand", s, off, truth(s));
  }
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::reference_failed);
  EXPECT_NE(v.detail.find("the original's 'output' differs between two runs on the same inputs (run 0"),
            std::string::npos)
      << v.detail;
  EXPECT_NE(v.detail.find("400 elements beyond the declared tolerance, first at 1000"), std::string::npos) << v.detail;
}

TEST_F(OracleJudgeTest, AnOriginalThatLeavesElementsUnwrittenIsReferenceFailed) {
  auto original = [](std::uint64_t s) {
    std::vector<float> v = truth(s);
    for (std::size_t i = 0; i < 64; ++i) v[i] = std::nanf("");  // still poisoned: all bytes 0xFF
    return v;
  };
  reference(original, truth);
  candidate(truth);
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::reference_failed);
  EXPECT_NE(v.detail.find("leaves 64 elements of 'output' unwritten"), std::string::npos) << v.detail;
}

// SGEMM_CUDA on an H100 (2026-11-27): C = alpha*A*B + beta*C with C
// declared an output only. The original read its poison and left NaN
// everywhere, so any candidate's NaN matched, and a tile that computes the
// wrong product was kept at 1.17x. An output with no finite element says
// nothing: the original is refused, whatever the candidate does.
TEST_F(OracleJudgeTest, AnOriginalWhoseOutputIsAllNanIsReferenceFailed) {
  m_dtype = "f32";
  SetUp();
  auto nan = [](std::uint64_t) { return std::vector<float>(4096, std::nanf("")); };
  for (std::uint64_t s : {1, 2, 3, 1}) {
    add_run(m_ref, "ref", s, nan(s), truth(s)).oracle.clear();
    add_run(m_cand, "cand", s, nan(s), truth(s)).oracle.clear();
  }
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::reference_failed);
  EXPECT_NE(v.detail.find("every element of 'output' the original left in run 0"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("declared inout"), std::string::npos) << v.detail;
}

// One finite element is enough to compare with: a mostly masked output is fine.
TEST_F(OracleJudgeTest, AnOutputWithSomeFiniteElementsIsCompared) {
  m_dtype = "f32";
  SetUp();
  auto masked = [](std::uint64_t s) {
    std::vector<float> v = truth(s);
    for (std::size_t i = 1; i < v.size(); ++i) v[i] = std::numeric_limits<float>::infinity();
    return v;
  };
  for (std::uint64_t s : {1, 2, 3, 1}) {
    add_run(m_ref, "ref", s, masked(s), truth(s)).oracle.clear();
    add_run(m_cand, "cand", s, masked(s), truth(s)).oracle.clear();
  }
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::ok) << v.detail;
}

TEST_F(OracleJudgeTest, TheDriversOwnCheckStillCounts) {
  reference(truth, truth);
  candidate(truth);
  m_cand.runs[2].driver_verdict = DriverVerdict::failed;
  m_cand.runs[2].driver_detail = "failed | max diff 0.3";
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::wrong_result);
  EXPECT_NE(v.detail.find("own check failed: failed | max diff 0.3"), std::string::npos) << v.detail;
  m_ref.runs[1].driver_verdict = DriverVerdict::failed;
  v = judge();
  EXPECT_EQ(v.status, Status::reference_failed);
}

TEST_F(OracleJudgeTest, NoGpuWorkOnBuffersAnEarlierCallGotIsACachedResult) {
  reference(truth, truth);
  candidate(truth);
  m_cand.runs[2].activities = 0;  // and yet the right answer: copied by the host? no: computed earlier
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::cached_result);
  EXPECT_NE(v.detail.find("launched no GPU work"), std::string::npos) << v.detail;
  m_cand.runs[2].repeated_pointers = false;  // fresh buffers: nothing to have cached
  EXPECT_EQ(judge().status, Status::ok);
}

TEST_F(OracleJudgeTest, InputsTheSeedDoesNotControlAreAHarnessError) {
  reference(truth, truth);
  candidate(truth);
  m_cand.runs[1].input_checksums["input"] = 12345;
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::harness_error);
  EXPECT_NE(v.detail.find("seed does not control"), std::string::npos) << v.detail;
}

TEST_F(OracleJudgeTest, AnInputTheOriginalAlsoWritesIsNotAModifiedInput) {
  reference(truth, truth);
  candidate(truth);
  m_cand.runs[1].inputs_modified = {"input"};
  EXPECT_EQ(judge().status, Status::input_modified);
  m_ref.runs[1].inputs_modified = {"input"};
  EXPECT_EQ(judge().status, Status::ok);
}

// A write past a buffer's end (a tile that overruns the matrix) can leave
// every compared element right: the runtime's guard bytes around the buffer
// tell. The original's own writes there are part of the contract.
TEST_F(OracleJudgeTest, AWriteOutsideABufferIsOutOfBounds) {
  reference(truth, truth);
  candidate(truth);
  m_cand.runs[1].outside_writes = {"out (after its end)"};
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::out_of_bounds);
  EXPECT_NE(v.detail.find("wrote outside buffer 'out' (after its end)"), std::string::npos) << v.detail;
  m_ref.runs[1].outside_writes = {"out (after its end)"};
  EXPECT_EQ(judge().status, Status::ok);
  m_cand.runs[1].outside_writes = {"out"};  // a report with no side named is judged all the same
  EXPECT_EQ(judge().status, Status::out_of_bounds);
}

// A checked timed call (TimingRequest::checks) is judged like a correctness
// run: a candidate cannot compute while checked and cut corners while timed.
TEST_F(OracleJudgeTest, ATimedCallThatCutsCornersIsWrong) {
  reference(truth, truth);
  candidate(truth);
  add_run(m_ref, "ref", 9, truth(9), truth(9)).timed_call = 150;
  std::vector<float> cheap(truth(9).size(), 1.0f);  // the mean: a cheap approximation
  RunReport& timed = add_run(m_cand, "cand", 9, cheap, truth(9));
  timed.timed_call = 150;
  timed.input_checksums.clear();
  m_ref.runs.back().input_checksums.clear();
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::wrong_result) << v.detail;
  EXPECT_NE(v.detail.find("timed call 150"), std::string::npos) << v.detail;
  ASSERT_EQ(m_checks.size(), 5u);
  EXPECT_EQ(m_checks[4].timed_call, 150);
  EXPECT_FALSE(m_checks[4].passed);
  EXPECT_TRUE(m_checks[3].passed);
}

TEST_F(OracleJudgeTest, ATimedCallAnsweredWithAnEarlierAnswerIsACachedResult) {
  reference(truth, truth);
  candidate(truth);
  add_run(m_ref, "ref", 9, truth(9), truth(9)).timed_call = 40;
  add_run(m_cand, "cand", 9, truth(2), truth(9)).timed_call = 40;  // run 1's answer again
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::cached_result) << v.detail;
  EXPECT_NE(v.detail.find("the answer of run 1"), std::string::npos) << v.detail;
}

TEST_F(OracleJudgeTest, ProcessesThatDidNotFollowOnePlanAreAHarnessError) {
  reference(truth, truth);
  candidate(truth);
  add_run(m_ref, "ref", 9, truth(9), truth(9)).timed_call = 40;
  add_run(m_cand, "cand", 10, truth(10), truth(10)).timed_call = 40;
  EXPECT_EQ(judge().status, Status::harness_error);
}

// Isolation writes kScrubWord over everything a launcher was not given; an
// output that holds it was copied from there: torch's reference, a freed
// tensor. In f16 the pattern is 0x7FF5, a NaN no arithmetic makes.
TEST_F(OracleJudgeTest, AnOutputCopiedFromIsolatedMemoryIsACopiedAnswer) {
  reference(truth, truth);
  candidate(truth);
  std::string bytes;
  for (std::size_t i = 0; i < truth(2).size(); ++i) bytes += std::string("\xF5\x7F", 2);
  write_file_atomic((m_root / "cand" / m_cand.runs[1].outputs[0].file).string(), bytes);
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::copied_answer) << v.detail;
  EXPECT_NE(v.detail.find("4096 of 4096 elements"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("run 1"), std::string::npos) << v.detail;
}

// The input program's torch::allclose, applied by the tool to the original's
// oracle: a candidate whose own process never had torch's answer (isolation)
// is still held to it, where the original passes it.
TEST_F(OracleJudgeTest, TheDriversOwnCheckIsAppliedWhereTheOriginalPassesIt) {
  auto exact = [](std::uint64_t s) {  // representable in f16: the original is torch's answer exactly
    std::vector<float> v = truth(s);
    for (float& x : v) x = half_to_float(to_half(x));
    return v;
  };
  reference(exact, exact);
  for (std::uint64_t s : {1, 2, 3, 1}) {
    std::vector<float> v = exact(s);
    for (float& x : v) x *= 1.0006f;  // within the dtype's tolerances, outside rtol 1e-4
    add_run(m_cand, "cand", s, v, exact(s)).driver_verdict = DriverVerdict::none;
  }
  EXPECT_EQ(judge().status, Status::ok);  // no allclose known: the calibrated tolerances alone
  for (RunReport& r : m_ref.runs) {
    r.oracle[0].allclose_rtol = 1e-4;
    r.oracle[0].allclose_atol = 1e-6;
  }
  Verdict v = judge();
  EXPECT_EQ(v.status, Status::wrong_result) << v.detail;
  EXPECT_NE(v.detail.find("torch::allclose(rtol=0.0001, atol=1e-06)"), std::string::npos) << v.detail;
  // Where the original itself fails the driver's check, the tool does not apply it.
  for (RunReport& r : m_ref.runs) r.oracle[0].allclose_rtol = r.oracle[0].allclose_atol = 0;
  for (RunReport& r : m_ref.runs) {
    std::vector<float> v2 = exact(r.seed);
    for (float& x : v2) x *= 1.0003f;
    dump("ref", r.outputs[0].file, v2, "f16");
  }
  EXPECT_NE(judge().status, Status::wrong_result);
}

TEST(JudgeState, L2PinnedAfterTheCallIsACachedResult) {
  HarnessReport ref, cand;
  EXPECT_EQ(judge_state(ref, cand).status, Status::ok);
  cand.persisting_l2_bytes = 30u << 20;
  Verdict v = judge_state(ref, cand);
  EXPECT_EQ(v.status, Status::cached_result);
  EXPECT_NE(v.detail.find("30 MiB"), std::string::npos) << v.detail;
  ref.persisting_l2_bytes = 1u << 20;  // the original does it too: part of the contract
  EXPECT_EQ(judge_state(ref, cand).status, Status::ok);
}

TEST(JudgeProcessChanges, OnlyChangesBeyondTheOriginalsAreTampering) {
  HarnessReport ref, cand;
  EXPECT_EQ(judge_process_changes(ref, cand).status, Status::ok);
  ref.process_changes = {"its handler of SIGSEGV replaced"};  // the runtime's own, in both
  cand.process_changes = ref.process_changes;
  EXPECT_EQ(judge_process_changes(ref, cand).status, Status::ok);
  cand.process_changes.push_back("PYTORCH_NO_CUDA_MEMORY_CACHING set in its environment");
  cand.process_changes.push_back("its handler of SIGALRM replaced");
  const Verdict v = judge_process_changes(ref, cand);
  EXPECT_EQ(v.status, Status::process_tampered);
  EXPECT_NE(v.detail.find("PYTORCH_NO_CUDA_MEMORY_CACHING set in its environment; its handler of SIGALRM"),
            std::string::npos) << v.detail;
  EXPECT_EQ(v.detail.find("SIGSEGV"), std::string::npos) << v.detail;
  // The report carries the changes through its JSON.
  EXPECT_EQ(report_from_json(report_to_json(cand)).process_changes, cand.process_changes);
}

TEST(JudgeReportFollowsPlan, TheRunsMustBeThePlansInOrder) {
  Plan plan;
  plan.runs = {{0, 11}, {1, 11}, {0, 12}};
  HarnessReport r;
  auto run = [](int index, int size, std::uint64_t seed, int timed_call = -1) {
    RunReport x;
    x.index = index;
    x.size = size;
    x.seed = seed;
    x.timed_call = timed_call;
    return x;
  };
  r.runs = {run(0, 0, 11), run(1, 1, 11), run(2, 0, 12), run(3, 1, 99, 4)};  // a checked timed call last
  EXPECT_EQ(judge_report_follows_plan(plan, r).status, Status::ok);
  r.runs.pop_back();
  r.runs.pop_back();  // a run short: the judge's run count says crashed, not this check
  EXPECT_EQ(judge_report_follows_plan(plan, r).status, Status::ok);
  r.runs = {run(0, 0, 11), run(1, 0, 12), run(2, 1, 11)};  // reordered
  const Verdict v = judge_report_follows_plan(plan, r);
  EXPECT_EQ(v.status, Status::process_tampered);
  EXPECT_NE(v.detail.find("run 1 has size 0 and seed 12, where the plan's has size 1 and seed 11"), std::string::npos)
      << v.detail;
  r.runs = {run(0, 0, 11), run(2, 1, 11)};
  EXPECT_NE(judge_report_follows_plan(plan, r).detail.find("numbers run 1 as run 2"), std::string::npos);
  r.runs = {run(0, 0, 11), run(1, 1, 11), run(2, 0, 12), run(3, 0, 13)};
  EXPECT_EQ(judge_report_follows_plan(plan, r).status, Status::process_tampered);
}

TEST(JudgeTiming, TimedRunsThatDoNothingAreACachedResult) {
  HarnessReport r;
  r.sizes = {{"default", {}, false}};
  TimingReport t;
  t.runs = 200;
  t.median_ns = 4000;
  r.timings = {t};
  EXPECT_EQ(judge_timing(HarnessReport{}, r).status, Status::ok);
  r.timings[0].empty_runs = 199;
  Verdict v = judge_timing(HarnessReport{}, r);
  EXPECT_EQ(v.status, Status::cached_result);
  EXPECT_NE(v.detail.find("199 of 200 timed runs launched no GPU work"), std::string::npos) << v.detail;
  r.timings[0].empty_runs = 0;
  r.timings[0].unwritten_runs = 3;
  r.timings[0].unwritten_detail = "run 1: 4096 elements";
  v = judge_timing(HarnessReport{}, r);
  EXPECT_EQ(v.status, Status::cached_result);
  EXPECT_NE(v.detail.find("run 1: 4096 elements"), std::string::npos) << v.detail;
}

// A u8 output whose right values are 255 (a clamped brightness) holds the
// timed runs' poison byte wherever it is bright: the original's runs show
// as many "unwritten" elements, so the candidate is held to that count
// (seen on an H100, 2026-11-26: every block size of bench/literal_blocks
// was rejected so), and only more than it is unwritten.
TEST(JudgeTiming, OutputValuesEqualToThePoisonAreNotUnwritten) {
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"hd", {}, false}};
  TimingReport t;
  t.runs = 2000;
  t.median_ns = 40000;
  t.unwritten_runs = 2000;
  t.unwritten_detail = "run 0: 696731 elements";
  t.unwritten_max = 698000;
  ref.timings = {t};
  t.unwritten_max = 698400;  // fresh inputs: the count moves a little from run to run
  cand.timings = {t};
  EXPECT_EQ(judge_timing(ref, cand).status, Status::ok);
  cand.timings[0].unwritten_max = 1036800;  // half the image left alone on top
  EXPECT_EQ(judge_timing(ref, cand).status, Status::cached_result);
  ref.timings[0].unwritten_runs = 0;  // an original that leaves nothing poisoned holds the candidate to none
  ref.timings[0].unwritten_max = 0;
  cand.timings[0].unwritten_max = 17;
  EXPECT_EQ(judge_timing(ref, cand).status, Status::cached_result);
}

}  // namespace
}  // namespace kernelblaster
