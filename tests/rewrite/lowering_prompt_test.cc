#include "rewrite/lowering_prompt.h"

#include <gtest/gtest.h>

#include "kb/kb_store.h"
#include "rewrite/code_blocks.h"

namespace kernelblaster::rewrite {
namespace {

const char* kSource =
    "#include <cuda_runtime.h>\n"
    "__global__ void scale(const float* x, float* y, int n) { int i = blockIdx.x * 256 + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }\n"
    "void launch(const float* x, float* y, int n) { scale<<<(n + 255) / 256, 256>>>(x, y, n); }\n";

LoweringInput sample() {
  LoweringInput in;
  in.kernel = "scale.cu";
  in.source = kSource;
  in.launcher = "launch";
  in.contract = "void launch(const float* x, float* y, int n): x is read, y is written (n floats).";
  in.arch = "sm_90";
  in.gpu = "NVIDIA H100 80GB HBM3";
  in.state = {"memory_bandwidth_bound", "Memory-bandwidth bound", "DRAM busy, SM idle", {}, 0};
  in.technique = {"vectorized_memory_access", "Vectorized memory access", "memory",
                  "Wider loads and stores.", "Load float4 where the pointer is 16-byte aligned; keep a scalar tail.",
                  {}};
  kb::Stats s;
  s.tries = 5;
  s.successes = 3;
  s.measured = 4;
  s.mean = 1.31;
  s.predicted = 1.2;
  s.confidence = 0.55;
  s.notes = {"float4 loads won on sm_90 for n >= 1M"};
  in.stats = s;
  in.metrics = {{"sm_throughput_pct", 12.5}, {"dram_throughput_pct", 81.25}, {"achieved_occupancy_pct", 93.0}};
  in.base_median_us = 41.5;
  in.tried = {"step 1: loop_unrolling: 1.02x (kept)"};
  return in;
}

TEST(LoweringPrompt, CarriesTheSourceStateProfileTechniqueAndKbRecord) {
  llm::Request r = lowering_request(sample());
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, llm::Role::system);
  const std::string& system = r.messages[0].content;
  for (const char* rule : {"signature exactly", "no results cached", "default stream", "environment variables",
                           "cuBLAS", "clock64", "Lower precision"})
    EXPECT_NE(system.find(rule), std::string::npos) << rule;
  const std::string& u = r.messages[1].content;
  for (const std::string& part :
       {std::string("scale.cu on NVIDIA H100 80GB HBM3 (sm_90), 41.5 us per call now."), std::string("Launcher: launch"),
        std::string("x is read, y is written"), std::string("Memory-bandwidth bound (memory_bandwidth_bound): DRAM busy, SM idle"),
        std::string("Throughput: DRAM 81.2%, SM 12.5% of peak."), std::string("achieved_occupancy_pct=93 dram_throughput_pct=81.25 sm_throughput_pct=12.5"),
        std::string("## Technique to apply: Vectorized memory access (vectorized_memory_access)"),
        std::string("Load float4 where the pointer is 16-byte aligned"),
        std::string("5 tries, 3 verified and faster; mean speedup 1.31x over 4 measured; predicted 1.2x (confidence 0.55)."),
        std::string("- float4 loads won on sm_90 for n >= 1M"), std::string("- step 1: loop_unrolling: 1.02x (kept)"),
        std::string("```cuda\n") + kSource + "```"})
    EXPECT_NE(u.find(part), std::string::npos) << part << "\n---\n" << u;
}

// A kernel rewritten alone from a harness of several launchers names none:
// the prompt has no empty "Launcher:" line, only the contract.
TEST(LoweringPrompt, NoLauncherLineWhereNoneIsNamed) {
  LoweringInput in = sample();
  in.launcher.clear();
  in.contract = "the launchers run_a, run_b keep their signatures";
  const std::string u = lowering_request(in).messages[1].content;
  EXPECT_EQ(u.find("Launcher:"), std::string::npos) << u;
  EXPECT_NE(u.find("per call now.\nthe launchers run_a, run_b keep their signatures"), std::string::npos) << u;
}

// The speed of light of one kernel of a call of several is stated on that
// kernel's own profiled time, not the whole call's; one kernel's on the call.
TEST(LoweringPrompt, TheBoundOfOneKernelOfSeveralIsOnItsOwnTime) {
  LoweringInput in = sample();
  in.metrics = {{"roofline_bound_pct", 16.3}, {"duration_us", 15166}, {"kernels_per_run", 3}};
  in.base_median_us = 9673;
  std::string u = lowering_request(in).messages[1].content;
  EXPECT_NE(u.find("the bound on its time in the profiled launch is 2472 us against 1.517e+04 us (one of 3 kernels of "
                   "the call)"),
            std::string::npos)
      << u;
  in.metrics["kernels_per_run"] = 1;
  u = lowering_request(in).messages[1].content;
  EXPECT_NE(u.find("the bound on one call's time is 1577 us against 9673 us now"), std::string::npos) << u;
}

TEST(LoweringPrompt, TheSameInputGivesTheSameBytes) {
  LoweringInput a = sample(), b = sample();
  b.metrics.clear();
  b.metrics["achieved_occupancy_pct"] = 93.0;
  b.metrics["dram_throughput_pct"] = 81.25;
  b.metrics["sm_throughput_pct"] = 12.5;
  llm::Request ra = lowering_request(a), rb = lowering_request(b);
  ASSERT_EQ(ra.messages.size(), rb.messages.size());
  for (std::size_t i = 0; i < ra.messages.size(); ++i) EXPECT_EQ(ra.messages[i].content, rb.messages[i].content);
}

TEST(LoweringPrompt, NoRecordAndNoStateAreSaidPlainly) {
  LoweringInput in = sample();
  in.stats.reset();
  in.state = {};
  in.tried.clear();
  const std::string u = lowering_request(in).messages[1].content;
  EXPECT_NE(u.find("No measurements of this technique in this state on sm_90 yet."), std::string::npos);
  EXPECT_NE(u.find("## Performance state\nunclassified\n"), std::string::npos);
  EXPECT_EQ(u.find("Earlier steps"), std::string::npos);
}

TEST(LoweringPrompt, TheRooflineIsPreferredWhereTheWorkWasDeclared) {
  std::string s = profile_summary({{"arithmetic_intensity", 0.25}, {"bandwidth_pct_of_peak", 88}, {"flops_pct_of_peak", 3}});
  EXPECT_EQ(s.rfind("Roofline: arithmetic intensity 0.25 FLOP/byte; DRAM bandwidth at 88.0% of the measured peak, "
                    "compute at 3.0% of the measured peak.\n", 0), 0u) << s;
  EXPECT_EQ(profile_summary({}), "");
}

TEST(FixPrompt, ShowsTheFailedCodeAndItsCauseCutToTheCap) {
  FixInput fix;
  fix.code = "broken code";
  fix.failure = "compile_failed";
  fix.detail = std::string(kMaxFeedbackChars + 500, 'e');
  fix.attempt = 2;
  llm::Request r = fix_request(sample(), fix);
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[2].role, llm::Role::assistant);
  EXPECT_EQ(r.messages[2].content, "```cuda\nbroken code\n```");
  const std::string& u = r.messages[3].content;
  EXPECT_EQ(u.rfind("Attempt 2 failed: compile_failed.\n", 0), 0u);
  EXPECT_NE(u.find("[... 500 more characters]"), std::string::npos);
  EXPECT_LT(u.size(), kMaxFeedbackChars + 300);
}

TEST(LoweringPrompt, AReplyThatEchoesTheSourceBlockExtractsToTheSource) {
  const std::string u = lowering_request(sample()).messages[1].content;
  Extraction e = extract_candidate(u, "launch");
  EXPECT_EQ(e.code, kSource) << e.why;
}

TEST(LoweringPrompt, EverySeedTechniqueTellsTheModelHowToApplyIt) {
  kb::KnowledgeBase seed = kb::load_kb(KERNELBLASTER_SOURCE_DIR "/data/kb/seed.json");
  ASSERT_FALSE(seed.techniques.empty());
  for (const kb::Technique& t : seed.techniques) {
    LoweringInput in = sample();
    in.technique = t;
    const std::string u = lowering_request(in).messages[1].content;
    EXPECT_FALSE(t.how_to.empty()) << t.id;
    EXPECT_NE(u.find(t.how_to), std::string::npos) << t.id;
  }
}

}  // namespace
}  // namespace kernelblaster::rewrite
