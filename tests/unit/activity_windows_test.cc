#include "harness/activity_windows.h"

#include <gtest/gtest.h>

namespace kernelblaster {
namespace {

constexpr std::uint32_t kMain = 100, kOther = 200;

TEST(ActivityWindows, SpanCoversEveryKernelOfTheRun) {
  std::vector<TimedWindow> w = {{1000, 2000, 900}, {3000, 4000, 900}};
  std::vector<GpuActivity> gpu = {{1100, 1300, 1}, {1350, 1800, 2}, {3100, 3400, 3}};
  std::unordered_map<std::uint32_t, ApiCall> api = {
      {1, {1010, 1020, kMain}}, {2, {1030, 1040, kMain}}, {3, {3010, 3020, kMain}}};
  Attribution a = attribute_activity(w, gpu, api, kMain);
  ASSERT_EQ(a.windows.size(), 2u);
  EXPECT_EQ(a.windows[0].span_ns, 700);  // 1100 .. 1800
  EXPECT_EQ(a.windows[0].activities, 2);
  EXPECT_EQ(a.windows[1].span_ns, 300);
  EXPECT_EQ(a.foreign, 0);
}

TEST(ActivityWindows, RuntimeWorkBetweenWindowsIsIgnored) {
  std::vector<TimedWindow> w = {{1000, 2000, 900}};
  std::vector<GpuActivity> gpu = {{500, 900, 7}, {1100, 1200, 8}};
  std::unordered_map<std::uint32_t, ApiCall> api = {{7, {400, 410, kMain}}, {8, {1010, 1020, kMain}}};
  Attribution a = attribute_activity(w, gpu, api, kMain);
  EXPECT_EQ(a.windows[0].activities, 1);
  EXPECT_EQ(a.foreign, 0);
}

TEST(ActivityWindows, WorkLaunchedByAnotherThreadAfterTheWindowIsForeign) {
  std::vector<TimedWindow> w = {{1000, 2000, 900}};
  std::vector<GpuActivity> gpu = {{2500, 4000, 9}};
  std::unordered_map<std::uint32_t, ApiCall> api = {{9, {2400, 2410, kOther}}};
  Attribution a = attribute_activity(w, gpu, api, kMain);
  EXPECT_EQ(a.foreign, 1);
  EXPECT_NE(a.first_foreign.find("another thread"), std::string::npos);
  EXPECT_EQ(a.windows[0].activities, 0);
}

TEST(ActivityWindows, UnjoinedStreamEscapesTheEventBracket) {
  // Events saw 5 us; the GPU worked for 40 us on a stream nobody waited for.
  std::vector<TimedWindow> w = {{1000, 60000, 5000}};
  std::vector<GpuActivity> gpu = {{2000, 42000, 1}};
  std::unordered_map<std::uint32_t, ApiCall> api = {{1, {1100, 1200, kMain}}};
  Attribution a = attribute_activity(w, gpu, api, kMain);
  EXPECT_TRUE(a.windows[0].escaped_events);
}

TEST(ActivityWindows, HonestRunsStayInsideTheBracket) {
  EXPECT_FALSE(escapes_event_bracket(7100, 11500));   // events carry launch overhead
  EXPECT_FALSE(escapes_event_bracket(42300, 41500));  // timer granularity
  EXPECT_TRUE(escapes_event_bracket(7100, 4400));
}

TEST(ActivityWindows, UntimedRecordsAreSkipped) {
  std::vector<TimedWindow> w = {{1000, 2000, 900}};
  std::vector<GpuActivity> gpu = {{0, 0, 1}};
  std::unordered_map<std::uint32_t, ApiCall> api = {{1, {1010, 1020, kMain}}};
  EXPECT_EQ(attribute_activity(w, gpu, api, kMain).windows[0].activities, 0);
}

}  // namespace
}  // namespace kernelblaster
