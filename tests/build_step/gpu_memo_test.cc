#include "build_step/gpu_memo.h"

#include <gtest/gtest.h>

#include "test_dir.h"

using namespace kernelblaster::build_step;
using kernelblaster::build_step::testing::TestDir;

namespace {

struct CountingProber {
  int calls = 0;
  std::optional<GpuFingerprint> answer;
  GpuProber fn() {
    return [this](int, std::string* why) {
      ++calls;
      if (!answer && why) *why = "no CUDA GPU available";
      return answer;
    };
  }
};

}  // namespace

TEST(GpuMemo, ProbesOncePerBootAndRemembersTheGpu) {
  TestDir dir;
  std::string boot = dir.write("boot_id", "1111-2222\n");
  CountingProber p;
  p.answer = kernelblaster::build_step::testing::h200();
  std::string why;
  auto first = probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), boot);
  auto second = probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), boot);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(p.calls, 1);
  EXPECT_EQ(second->id(), kernelblaster::build_step::testing::h200().id());
}

TEST(GpuMemo, ANewBootOrAnotherDeviceProbesAgain) {
  TestDir dir;
  CountingProber p;
  p.answer = kernelblaster::build_step::testing::h200();
  std::string why;
  probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), dir.write("boot_a", "a\n"));
  probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), dir.write("boot_b", "b\n"));
  probe_gpu_remembered(dir.path("memo"), 1, &why, p.fn(), dir.path("boot_b"));
  EXPECT_EQ(p.calls, 3);
}

TEST(GpuMemo, NoGpuIsNeverRemembered) {
  TestDir dir;
  std::string boot = dir.write("boot_id", "x\n");
  CountingProber p;  // no GPU
  std::string why;
  EXPECT_FALSE(probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), boot));
  EXPECT_EQ(why, "no CUDA GPU available");
  p.answer = kernelblaster::build_step::testing::h200();  // a driver appears
  EXPECT_TRUE(probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), boot));
  EXPECT_EQ(p.calls, 2);
}

TEST(GpuMemo, AnUnreadableBootIdOrACorruptMemoOnlyCostsTheProbe) {
  TestDir dir;
  CountingProber p;
  p.answer = kernelblaster::build_step::testing::h200();
  std::string why;
  EXPECT_TRUE(probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), dir.path("missing")));
  EXPECT_TRUE(probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), dir.path("missing")));
  EXPECT_EQ(p.calls, 2);
  std::string boot = dir.write("boot_id", "y\n");
  probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), boot);
  for (const auto& e : std::filesystem::directory_iterator(dir.path("memo"))) dir.write("memo/" + e.path().filename().string(), "{not json");
  EXPECT_TRUE(probe_gpu_remembered(dir.path("memo"), 0, &why, p.fn(), boot));
  EXPECT_EQ(p.calls, 4);
}
