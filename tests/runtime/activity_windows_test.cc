#include "runtime/activity_windows.h"

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
  EXPECT_EQ(a.windows[0].busy_ns, 650);  // 200 + 450: the 50 ns idle gap is not busy time
  EXPECT_EQ(a.windows[1].busy_ns, 300);
  EXPECT_EQ(a.foreign, 0);
}

TEST(ActivityWindows, BusyTimeCountsOverlappingWorkOnce) {
  EXPECT_EQ(covered_ns({}), 0u);
  EXPECT_EQ(covered_ns({{10, 20}, {15, 30}, {40, 50}}), 30u);  // 10..30 and 40..50
  EXPECT_EQ(covered_ns({{40, 50}, {10, 100}, {20, 30}}), 90u);  // nested, out of order
  EXPECT_EQ(covered_ns({{10, 20}, {20, 30}}), 20u);              // touching
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

// A gated window: the runtime's gate kernel (correlation 50) holds the
// default stream from 900 to 30000; the call's own work is queued behind it.
TEST(ActivityWindows, WorkThatStartsBeforeTheGateEndsIsUnordered) {
  std::vector<TimedWindow> w = {{1000, 60000, 1e18, true}};
  std::unordered_map<std::uint32_t, ApiCall> api = {
      {50, {800, 810, kMain}}, {1, {1100, 1200, kMain}}, {2, {1300, 1400, kMain}}};
  // Honest: the call's kernel starts when the gate ends (back-to-back, no gap).
  Attribution honest = attribute_activity(w, {{900, 30000, 50}, {30000, 32000, 1}}, api, kMain);
  EXPECT_EQ(honest.unordered, 0);
  EXPECT_EQ(honest.windows[0].activities, 1);  // the gate is the runtime's, not the call's
  // A kernel on a stream that ignores the default stream runs during the gate.
  Attribution side = attribute_activity(w, {{900, 30000, 50}, {1500, 3500, 1}, {30000, 32000, 2}}, api, kMain);
  EXPECT_EQ(side.unordered, 1);
  EXPECT_EQ(side.windows[0].unordered, 1);
  EXPECT_NE(side.first_unordered.find("not ordered after the caller's"), std::string::npos) << side.first_unordered;
  // Without a gate nothing can be said.
  w[0].gated = false;
  EXPECT_EQ(attribute_activity(w, {{900, 30000, 50}, {1500, 3500, 1}}, api, kMain).unordered, 0);
}

TEST(ActivityWindows, UnorderedWorkCountsOnlyWhenTheCallLeftItRunning) {
  // The call returned at 20000; the gate held until 30000.
  std::vector<TimedWindow> w = {{1000, 60000, 1e18, true, 20000}};
  std::unordered_map<std::uint32_t, ApiCall> api = {{50, {800, 810, kMain}}, {1, {1100, 1200, kMain}}};
  // A call that waits for its own non-blocking stream before returning.
  EXPECT_EQ(attribute_activity(w, {{900, 30000, 50}, {1500, 12000, 1}}, api, kMain).unordered, 0);
  // Launched and left: it starts after the call returned, while the gate still holds.
  EXPECT_EQ(attribute_activity(w, {{900, 30000, 50}, {20005, 26000, 1}}, api, kMain).unordered, 1);
  // Started before the return, still running after it.
  EXPECT_EQ(attribute_activity(w, {{900, 30000, 50}, {15000, 24000, 1}}, api, kMain).unordered, 1);
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


TEST(ActivityWindows, EachRunListsItsKernelsInTheOrderTheyStarted) {
  std::vector<TimedWindow> w = {{1000, 2000, 900}};
  // Reported out of order, with a copy between the kernels.
  std::vector<GpuActivity> gpu = {
      {1500, 1700, 2, "_Z4tailv"}, {1100, 1300, 1, "_Z4headv"}, {1320, 1340, 3, ""}};
  std::unordered_map<std::uint32_t, ApiCall> api = {
      {1, {1010, 1020, kMain}}, {2, {1030, 1040, kMain}}, {3, {1025, 1028, kMain}}};
  Attribution a = attribute_activity(w, gpu, api, kMain);
  ASSERT_EQ(a.windows[0].kernels.size(), 2u);
  EXPECT_EQ(a.windows[0].kernels[0].name, "_Z4headv");
  EXPECT_EQ(a.windows[0].kernels[0].ns, 200);
  EXPECT_EQ(a.windows[0].kernels[1].name, "_Z4tailv");
  EXPECT_EQ(a.windows[0].activities, 3);
}

TEST(ActivityWindows, KernelTimingsTakeEachPlaceOverTheRunsOfTheUsualCount) {
  std::vector<std::vector<KernelRun>> runs = {
      {{"a", 10}, {"b", 100}},
      {{"a", 12}, {"b", 104}},
      {{"a", 500}},  // a run that launched one kernel only: left out
      {{"a", 11}, {"b", 102}},
      {},
  };
  std::vector<KernelTiming> t = kernel_timings(runs);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "a");
  EXPECT_DOUBLE_EQ(t[0].median_ns, 11);
  EXPECT_EQ(t[1].name, "b");
  EXPECT_DOUBLE_EQ(t[1].median_ns, 102);
  EXPECT_LE(t[1].q1_ns, t[1].median_ns);
  EXPECT_GE(t[1].q3_ns, t[1].median_ns);
  EXPECT_TRUE(kernel_timings({{}, {}}).empty());
}

}  // namespace
}  // namespace kernelblaster
