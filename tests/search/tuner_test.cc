#include "search/tuner.h"

#include <gtest/gtest.h>

using namespace kernelblaster;

namespace {
class NoGpu final : public GpuProbe {
 public:
  GpuInfo probe(int) override { return {false, "no CUDA device (test)", "", ""}; }
};
}  // namespace

TEST(Tune, NoGpuIsExit77WithAReason) {
  search::TuneOptions opt;
  opt.source = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/src/softmax.cu";
  opt.harness = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/harness/softmax_harness.cu";
  NoGpu probe;
  search::TuneSummary s = search::run_tune(opt, "/nonexistent/kernelblaster", probe, nullptr);
  EXPECT_EQ(s.exit_code, 77);
  EXPECT_EQ(s.status, search::TuneVerdict::no_gpu);
  EXPECT_EQ(s.reason, "no CUDA device (test)");
}

TEST(Tune, MissingFilesAreMisuse) {
  search::TuneOptions opt;
  opt.source = "/nonexistent/k.cu";
  opt.harness = std::string(KERNELBLASTER_EXAMPLES_DIR) + "/harness/softmax_harness.cu";
  NoGpu probe;
  EXPECT_THROW(search::run_tune(opt, "/x", probe, nullptr), std::runtime_error);
}
