#include "build_step/build_record.h"

#include <gtest/gtest.h>

#include "build_step/results_cache.h"
#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

using testing::h200;
using testing::TestDir;

TEST(BuildRecord, KeepsWhatTheStepDecidedAndWhy) {
  BuildRequest req;
  req.target = "app";
  req.source = "/src/softmax.cu";
  req.out = "/build/gen/softmax.cu";
  req.lockfile = "/src/kernelblaster.lock.json";
  req.cache_dir = "/cache";
  BuildReport rep;
  rep.action = BuildAction::applied;
  rep.origin = ResultOrigin::lockfile;
  rep.cause = BuildCause::applied;
  rep.key = "k1";
  rep.selector = h200().id();
  rep.line = "kernelblaster: softmax.cu: applied ...";
  rep.stale_lockfile = true;
  TunedResult r;
  r.key = "k1";
  r.improved = true;
  r.speedup = 1.28;
  r.gpu = h200();
  r.config = {{"BLOCK_SIZE", "128"}};
  rep.result = r;

  std::string why;
  std::optional<BuildRecord> back = parse_build_record(build_record_text(req, rep), "x.stamp", &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->target, "app");
  EXPECT_EQ(back->source, "/src/softmax.cu");
  EXPECT_EQ(back->out, "/build/gen/softmax.cu");
  EXPECT_EQ(back->action, BuildAction::applied);
  EXPECT_EQ(back->cause, BuildCause::applied);
  EXPECT_EQ(back->origin, ResultOrigin::lockfile);
  EXPECT_EQ(back->selector, h200().id());
  EXPECT_EQ(back->line, rep.line);
  EXPECT_EQ(back->lockfile, "/src/kernelblaster.lock.json");
  EXPECT_EQ(back->cache_dir, "/cache");
  EXPECT_TRUE(back->stale_lockfile);
  EXPECT_EQ(back->decided_at.size(), 20u);  // 2026-11-27T02:09:05Z
  ASSERT_TRUE(back->result);
  EXPECT_DOUBLE_EQ(back->result->speedup, 1.28);
  EXPECT_EQ(back->result->config.at("BLOCK_SIZE"), "128");
  EXPECT_EQ(back->result->gpu.name, "NVIDIA H200");
}

TEST(BuildRecord, AnOlderStampOrAForeignFileIsNoRecordAndSaysSo) {
  std::string why;
  EXPECT_FALSE(parse_build_record("0123abcd\nkernelblaster: a.cu: ...\n", "old.stamp", &why));
  EXPECT_NE(why.find("old.stamp: not a build step's record"), std::string::npos) << why;
  EXPECT_FALSE(parse_build_record("{\"other\": 1}", "x.stamp", &why));
  EXPECT_NE(why.find("older KernelBlaster"), std::string::npos) << why;
  EXPECT_FALSE(parse_build_record("{\"kernelblaster_build_step\": 1, \"cause\": \"sunspots\"}", "y.stamp", &why));
  EXPECT_NE(why.find("unknown cause 'sunspots'"), std::string::npos) << why;
  EXPECT_FALSE(parse_build_record("{\"kernelblaster_build_step\": 1, \"cause\": \"tuned\", \"result\": 3}", "z.stamp", &why));
  EXPECT_NE(why.find("z.stamp"), std::string::npos) << why;
}

TEST(BuildRecord, EveryCauseNameReadsBack) {
  for (int c = static_cast<int>(BuildCause::applied); c <= static_cast<int>(BuildCause::no_harness); ++c) {
    BuildCause back = BuildCause::applied;
    ASSERT_TRUE(build_cause_from_name(build_cause_name(static_cast<BuildCause>(c)), &back)) << c;
    EXPECT_EQ(static_cast<int>(back), c);
  }
  BuildCause unused;
  EXPECT_FALSE(build_cause_from_name("unknown", &unused));
}

TEST(GateRecord, RoundTripsAndRefusesWhatIsNotOne) {
  GateRecord g{"speed", 1, "FAIL: 0.970x (IQR 0.950-0.990x) against the threshold 1.000x", 0.97, "NVIDIA H100 80GB HBM3",
               "2026-11-27T00:00:00Z", "abc"};
  std::optional<GateRecord> back = parse_gate_record(gate_record_text(g));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->check, "speed");
  EXPECT_EQ(back->exit_code, 1);
  EXPECT_EQ(back->verdict, g.verdict);
  EXPECT_DOUBLE_EQ(back->speedup, 0.97);
  EXPECT_EQ(back->device, g.device);
  EXPECT_EQ(back->judged_sha256, "abc");
  EXPECT_FALSE(parse_gate_record("{\"check\": \"speed\"}"));
  EXPECT_FALSE(parse_gate_record("{torn"));
  EXPECT_EQ(gate_record_path("/b/gen/a.cu", "speed"), "/b/gen/a.cu.gate-speed.json");
}

TEST(ResultsCacheAllFor, GivesEveryGpusEntryForTheKeyAndNoOther) {
  TestDir dir;
  ResultsCache cache(dir.path("cache"), 1 << 20);
  TunedResult a;
  a.key = "k1";
  a.gpu = h200();
  a.speedup = 1.3;
  cache.store(a);
  TunedResult b = a;
  b.gpu = {"NVIDIA H100 80GB HBM3", 9, 0, 132, 13};
  b.speedup = 1.2;
  cache.store(b);
  TunedResult other = a;
  other.key = "k2";
  cache.store(other);
  dir.write("cache/" + h200().id() + "/k3.json", "{torn");
  std::vector<TunedResult> all = cache.all_for("k1");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].gpu.name, "NVIDIA H100 80GB HBM3");  // by fingerprint id
  EXPECT_EQ(all[1].gpu.name, "NVIDIA H200");
  EXPECT_TRUE(cache.all_for("k3").empty());
  EXPECT_TRUE(ResultsCache(dir.path("none"), 1).all_for("k1").empty());
}

}  // namespace
}  // namespace kernelblaster::build_step
