#include "tuner/tuner.h"

#include <gtest/gtest.h>

using namespace kernelblaster;

namespace {
class NoGpu final : public GpuProbe {
 public:
  GpuInfo probe(int) override { return {false, "no CUDA device (test)", "", ""}; }
};
}  // namespace

TEST(Tune, NoGpuIsExit77WithAReason) {
  tuner::TuneOptions opt;
  opt.source = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src/softmax.cu";
  opt.harness = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/harness/softmax_harness.cu";
  NoGpu probe;
  tuner::TuneSummary s = tuner::run_tune(opt, "/nonexistent/kernelblaster", probe, nullptr);
  EXPECT_EQ(s.exit_code, 77);
  EXPECT_EQ(s.status, tuner::TuneVerdict::no_gpu);
  EXPECT_EQ(s.reason, "no CUDA device (test)");
}

TEST(Tune, MissingFilesAreMisuse) {
  tuner::TuneOptions opt;
  opt.source = "/nonexistent/k.cu";
  opt.harness = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/harness/softmax_harness.cu";
  NoGpu probe;
  EXPECT_THROW(tuner::run_tune(opt, "/x", probe, nullptr), std::runtime_error);
}

// What the winner's second look found reaches the build step's JSON whether
// or not the run was judged launcher group by launcher group (the memcheck
// line once reached it only from a focused run).
TEST(Tune, TheSummaryCarriesTheWinnersSecondLook) {
  tuner::TuneSummary s;
  s.memcheck = "compute-sanitizer's memcheck: no invalid access in 6 runs (0.9 s)";
  s.slower_at_a_size = "sgemmWarptiling 0.973x at call4, 1.031x over 2 sizes";
  s.other_sizes = "0.942x (call3) to 0.966x (call0) at 4 sizes";
  s.launch_paced = "at 1024x1024 the harness took 4.60 us to issue a launch, longer than copy now runs";
  const std::string j = tuner::tune_summary_to_json(s);
  for (const std::string& key : {"memcheck", "slower_at_a_size", "other_sizes", "launch_paced"})
    EXPECT_NE(j.find("\"" + key + "\""), std::string::npos) << key << " missing from " << j;
}
