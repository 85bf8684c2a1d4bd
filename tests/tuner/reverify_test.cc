#include "tuner/reverify.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "fakes.h"

using namespace kernelblaster::tuner;
using kernelblaster::CandidateResult;
using kernelblaster::Status;
using namespace kernelblaster::tuner::testing;

namespace {

// Answers remeasure() per device; records the calls and whether they all
// ran at once.
class DeviceMeasurer final : public Measurer {
 public:
  std::map<int, CandidateResult> by_device;  // missing: ok 1.5
  int expect_together = 1;               // calls that should overlap
  bool throw_on_device_1 = false;

  std::mutex mutex;
  std::condition_variable cv;
  std::map<int, int> seeds_of;  // device → seeds asked
  std::map<int, int> calls;
  int inside = 0, most_inside = 0;

  std::string machine_code(const Configuration&) override { return ""; }
  CandidateResult measure(const Configuration&, int) override { return failed(Status::tool_error, "not for this test"); }
  CandidateResult remeasure(const Configuration&, int device, int seeds) override {
    {
      std::unique_lock<std::mutex> lock(mutex);
      ++calls[device];
      seeds_of[device] = seeds;
      most_inside = std::max(most_inside, ++inside);
      cv.notify_all();
      // Wait (bounded) for the others: proves they run at once, not in turn.
      cv.wait_for(lock, std::chrono::seconds(5), [&] { return most_inside >= expect_together; });
      --inside;
    }
    if (throw_on_device_1 && device == 1) throw std::runtime_error("lost the GPU");
    auto it = by_device.find(device);
    return it == by_device.end() ? ok(1.5) : it->second;
  }
};

Configuration winner() {
  Configuration c;
  c.id = "BLOCK_SIZE=128";
  c.values["BLOCK_SIZE"] = "128";
  c.settings.push_back({"BLOCK_SIZE", "128", "block_size_adaptation", false});
  return c;
}

}  // namespace

TEST(Reverify, SeedsAreSharedOutEachDeviceAtLeastThree) {
  EXPECT_EQ(reverify_seeds_per_device(6, 1), 6);
  EXPECT_EQ(reverify_seeds_per_device(6, 2), 3);
  EXPECT_EQ(reverify_seeds_per_device(10, 3), 4);  // together 12 >= 10
  EXPECT_EQ(reverify_seeds_per_device(6, 4), 3);   // the engine's minimum
  EXPECT_EQ(reverify_seeds_per_device(6, 0), 6);
}

TEST(Reverify, OneDeviceIsOneEvaluationWithEverySeed) {
  DeviceMeasurer m;
  Reverification r = reverify(m, winner(), {0}, 6);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(m.calls[0], 1);
  EXPECT_EQ(m.seeds_of[0], 6);
  EXPECT_TRUE(r.passed());
  ASSERT_NE(r.slowest(), nullptr);
  EXPECT_DOUBLE_EQ(r.slowest()->result.speedup, 1.5);
}

TEST(Reverify, EveryDeviceLooksAtOnceAndTheLowestSpeedupCounts) {
  DeviceMeasurer m;
  m.expect_together = 2;
  m.by_device[0] = ok(1.31);
  m.by_device[1] = ok(1.27);
  Reverification r = reverify(m, winner(), {0, 1}, 6);
  EXPECT_EQ(m.calls[0], 1);
  EXPECT_EQ(m.calls[1], 1);
  EXPECT_EQ(m.seeds_of[0], 3);
  EXPECT_EQ(m.seeds_of[1], 3);
  EXPECT_EQ(m.most_inside, 2);  // concurrent, not one after the other
  ASSERT_TRUE(r.passed());
  EXPECT_EQ(r.failure(), nullptr);
  ASSERT_NE(r.slowest(), nullptr);
  EXPECT_EQ(r.slowest()->device, 1);
  EXPECT_DOUBLE_EQ(r.slowest()->result.speedup, 1.27);
  EXPECT_EQ(r.checks[0].device, 0);
  EXPECT_EQ(r.checks[1].device, 1);
}

TEST(Reverify, OneDeviceFailingFailsTheWinner) {
  DeviceMeasurer m;
  m.expect_together = 2;
  m.by_device[0] = ok(1.4);
  m.by_device[1] = failed(Status::wrong_result, "y[7] off by 3e-2");
  Reverification r = reverify(m, winner(), {0, 1}, 6);
  EXPECT_FALSE(r.passed());
  ASSERT_NE(r.failure(), nullptr);
  EXPECT_EQ(r.failure()->device, 1);
  EXPECT_EQ(r.failure()->result.status, Status::wrong_result);
  EXPECT_EQ(r.failure()->result.detail, "y[7] off by 3e-2");
}

TEST(Reverify, AMeasurerThatThrowsIsAFailedCheck) {
  DeviceMeasurer m;
  m.expect_together = 2;
  m.throw_on_device_1 = true;
  Reverification r = reverify(m, winner(), {0, 1}, 6);
  EXPECT_FALSE(r.passed());
  ASSERT_NE(r.failure(), nullptr);
  EXPECT_EQ(r.failure()->device, 1);
  EXPECT_EQ(r.failure()->result.status, Status::tool_error);
  EXPECT_EQ(r.failure()->result.detail, "lost the GPU");
}

TEST(Reverify, AMeasurerThatCannotLookAgainNeverPasses) {
  FakeMeasurer m;  // no remeasure of its own: the Measurer default
  Reverification r = reverify(m, winner(), {0}, 6);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.slowest(), nullptr);
}
