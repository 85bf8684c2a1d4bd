#include "common/protocol.h"

#include <gtest/gtest.h>

#include <map>

#include "common/ctest_resources.h"
#include "common/stats.h"
#include "judge/plan_builder.h"
#include "judge/result.h"

namespace kernelblaster {
namespace {

TEST(Protocol, PlanRoundTrips) {
  Plan p;
  p.runs = {{0, 11}, {1, 12}};
  p.timing.budget_ms = 123;
  p.timing.sizes = {1};
  p.lock_dir = "/tmp/locks";
  p.probe_initial_outputs = true;
  p.dump_oracles = false;
  Plan q = plan_from_json(plan_to_json(p));
  EXPECT_TRUE(q.probe_initial_outputs);
  EXPECT_FALSE(q.dump_oracles);
  ASSERT_EQ(q.runs.size(), 2u);
  EXPECT_EQ(q.runs[1].seed, 12u);
  EXPECT_EQ(q.timing.budget_ms, 123);
  EXPECT_EQ(q.timing.sizes, std::vector<int>{1});
  EXPECT_EQ(q.lock_dir, "/tmp/locks");
}

TEST(Protocol, MissingKeysTakeDefaults) {
  Plan p = plan_from_json(R"({"runs": [{"size": 0, "seed": 5}]})");
  EXPECT_TRUE(p.timing.enabled);
  EXPECT_EQ(p.timing.min_runs, TimingRequest{}.min_runs);
  EXPECT_TRUE(p.dump_oracles);  // an original's process keeps torch's side unless told not to
}

TEST(Protocol, AReportKeepsItsPhasesInOrder) {
  HarnessReport r;
  r.phase_s = {{"setup", 0.1}, {"discovery", 0.2}, {"correctness", 1.5}, {"timing", 0.7}};
  HarnessReport back = report_from_json(report_to_json(r));
  EXPECT_EQ(back.phase_s, r.phase_s);
}

TEST(Protocol, MalformedReportIsAnError) {
  EXPECT_THROW(report_from_json("{\"runs\": 3"), std::runtime_error);
  EXPECT_THROW(report_from_json("{\"runs\": \"many\"}"), std::runtime_error);
}

TEST(PlanBuilder, SizesForwardThenBackwardWithTheFirstSeed) {
  std::vector<SizeDecl> sizes = {{"a", {}, false}, {"b", {}, false}, {"v", {}, true}};
  auto runs = correctness_runs(sizes, {7, 8, 9}, false);
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].size, 0);
  EXPECT_EQ(runs[2].seed, 9u);
  EXPECT_EQ(runs[3].size, 1);
  EXPECT_EQ(runs[6].size, 1);  // reversed: b then a
  EXPECT_EQ(runs[6].seed, 7u);
  EXPECT_EQ(runs[7].size, 0);
  EXPECT_EQ(correctness_runs(sizes, {7, 8, 9}, true).size(), 12u);
}

TEST(PlanBuilder, AScreenRunsEachSizeWithOneSeedAndOnlyTheTimedSizesInReverse) {
  std::vector<SizeDecl> sizes = {{"a", {}, false}, {"b", {}, false}, {"v", {}, true}, {"w", {}, true}};
  auto runs = correctness_runs(sizes, {7, 8, 9}, true, true);
  // a, b, v, w with the first seed, then b and a again in reverse
  ASSERT_EQ(runs.size(), 6u);
  for (const RunRequest& r : runs) EXPECT_EQ(r.seed, 7u);
  EXPECT_EQ(runs[2].size, 2);
  EXPECT_EQ(runs[3].size, 3);
  EXPECT_EQ(runs[4].size, 1);
  EXPECT_EQ(runs[5].size, 0);
  // not a screen: each size with every seed, all again in reverse
  EXPECT_EQ(correctness_runs(sizes, {7, 8, 9}, true, false).size(), 16u);
  // without the validation sizes: the timed sizes once each and in reverse
  EXPECT_EQ(correctness_runs(sizes, {7, 8, 9}, false, true).size(), 4u);
}

// SGEMM_CUDA's harness: two timed sizes and four validation sizes, three
// seeds. A screen: 6 runs with one seed, 2 in reverse, 2 checked timed
// calls (10); a full check: 18 runs, 6 in reverse, 6 checked calls (30).
TEST(PlanBuilder, AScreensShareIsItsRunsAndChecksOverAFullChecks) {
  std::vector<SizeDecl> sizes = {{"a", {}, false}, {"b", {}, false}, {"v", {}, true},
                                 {"w", {}, true},  {"x", {}, true},  {"y", {}, true}};
  EXPECT_DOUBLE_EQ(screen_share(sizes, 3, true, 2), 10.0 / 30.0);
  // one timed size, no validation sizes: 1 + 1 + 1 over 3 + 1 + 3
  EXPECT_DOUBLE_EQ(screen_share({{"a", {}, false}}, 3, false, 1), 3.0 / 7.0);
}

TEST(PlanBuilder, SeedsAreDistinctAndFreshUnlessFixed) {
  auto a = make_seeds(5, 0), b = make_seeds(5, 0);
  EXPECT_EQ(a.size(), 5u);
  EXPECT_NE(a, b);
  EXPECT_EQ(make_seeds(3, 100), (std::vector<std::uint64_t>{100, 101, 102}));
}

TEST(Stats, QuantilesInterpolate) {
  Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.q1, 2);
  EXPECT_EQ(s.q3, 4);
  EXPECT_EQ(s.min, 1);
  Summary even = summarize({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.q1, 1.75);
  EXPECT_EQ(summarize({}).n, 0);
}

TEST(Result, StatusNamesRoundTrip) {
  for (Status s : {Status::ok, Status::crashed, Status::untimed_work, Status::cached_result, Status::inaccurate,
                   Status::out_of_memory}) {
    Status back;
    ASSERT_TRUE(status_from_name(status_name(s), &back));
    EXPECT_EQ(back, s);
  }
  Status x;
  EXPECT_FALSE(status_from_name("fine", &x));
}

TEST(Result, JsonCarriesTheVerdict) {
  EvalResult r;
  r.status = Status::unwritten_output;
  r.detail = "output 'y'";
  SizeTiming t;
  t.size = "large";
  t.median_us = 42;
  r.timing = {t};
  std::string j = result_to_json(r);
  EXPECT_NE(j.find("\"status\": \"unwritten_output\""), std::string::npos);
  EXPECT_NE(j.find("\"accepted\": false"), std::string::npos);
  EXPECT_NE(j.find("\"median_us\": 42"), std::string::npos);
  EXPECT_NE(result_to_text(r).find("unwritten_output"), std::string::npos);
  EXPECT_EQ(j.find("sandbox"), std::string::npos);  // no process ran
}

// How the harness processes were held, over all of them: one without
// network makes the whole evaluation "network allowed".
TEST(Result, SandboxRecordAddsUpTheProcesses) {
  EvalResult r;
  r.sandbox.add(true, std::uint64_t{8} << 30, std::uint64_t{1} << 30, 0);
  SandboxRecord round;
  round.add(true, std::uint64_t{8} << 30, std::uint64_t{3} << 30, 2);
  r.sandbox.add(round);
  EXPECT_EQ(r.sandbox.processes, 2);
  EXPECT_TRUE(r.sandbox.network_isolated);
  EXPECT_EQ(r.sandbox.peak_resident_bytes, std::uint64_t{3} << 30);
  EXPECT_EQ(r.sandbox.strays_killed, 2);
  std::string j = result_to_json(r);
  EXPECT_NE(j.find("\"network_isolated\": true"), std::string::npos) << j;
  EXPECT_NE(j.find("\"peak_resident_bytes\": 3221225472"), std::string::npos) << j;
  EXPECT_NE(result_to_text(r).find("sandbox: no network, at most 3.0 GiB resident (limit 8.0 GiB), 2 escaped"),
            std::string::npos)
      << result_to_text(r);
  r.sandbox.add(false, 0, 0, 0);
  EXPECT_FALSE(r.sandbox.network_isolated);
}

}  // namespace
// The error's kind is a type inside the tool and a name in the report; a
// name the tool does not know is an error of unknown kind, never no error.
TEST(Protocol, AHarnessErrorsKindRoundTripsAndAnUnknownNameIsNoCleanRun) {
  HarnessReport r;
  r.error = {HarnessErrorKind::launch_error, "bad grid", 1, "correctness"};
  HarnessReport back = report_from_json(report_to_json(r));
  EXPECT_EQ(back.error.kind, HarnessErrorKind::launch_error);
  EXPECT_EQ(back.error.run, 1);
  EXPECT_EQ(report_from_json(report_to_json(HarnessReport{})).error.kind, HarnessErrorKind::none);
  std::string text = report_to_json(r);
  text.replace(text.find("launch_error"), 12, "fake_success");
  EXPECT_EQ(report_from_json(text).error.kind, HarnessErrorKind::unknown);
}

}  // namespace kernelblaster

// One rule for what a try teaches the KB (issue 42): an environment's
// failure, or a request that never reached the model, says nothing about
// the candidate; everything the code did does.
TEST(Status, WhatATryTeachesTheKb) {
  using kernelblaster::AttemptEnd;
  using kernelblaster::Status;
  for (Status s : {Status::no_gpu, Status::tool_error, Status::harness_error, Status::reference_failed,
                   Status::not_recorded}) {
    EXPECT_FALSE(kernelblaster::judges_the_candidate(s)) << kernelblaster::status_name(s);
    EXPECT_FALSE(kernelblaster::teaches_kb(AttemptEnd::rejected, s)) << kernelblaster::status_name(s);
  }
  for (Status s : {Status::ok, Status::compile_failed, Status::crashed, Status::wrong_result, Status::cached_result,
                   Status::forbidden_code, Status::process_tampered, Status::timed_out}) {
    EXPECT_TRUE(kernelblaster::judges_the_candidate(s)) << kernelblaster::status_name(s);
    EXPECT_TRUE(kernelblaster::teaches_kb(AttemptEnd::rejected, s)) << kernelblaster::status_name(s);
  }
  EXPECT_TRUE(kernelblaster::teaches_kb(AttemptEnd::verified, Status::ok));
  EXPECT_TRUE(kernelblaster::teaches_kb(AttemptEnd::static_check, Status::ok));
  EXPECT_TRUE(kernelblaster::teaches_kb(AttemptEnd::no_code, Status::ok));
  EXPECT_FALSE(kernelblaster::teaches_kb(AttemptEnd::llm_failed, Status::ok));
  EXPECT_FALSE(kernelblaster::teaches_kb(AttemptEnd::not_attempted, Status::ok));
}

// Issue 41: a gate runs on the GPU CTest allocated to it.
TEST(CtestResources, TheAllocatedGpuIsTheGatesDevice) {
  auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_FALSE(kernelblaster::ctest_allocated_gpu(env_of({})).has_value());
  EXPECT_EQ(kernelblaster::ctest_allocated_gpu(env_of({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                                                      {"CTEST_RESOURCE_GROUP_0", "gpus"},
                                                      {"CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1"}})),
            3);
  // Another resource type first; several allocations: the first GPU's.
  EXPECT_EQ(kernelblaster::ctest_allocated_gpu(env_of({{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                                                      {"CTEST_RESOURCE_GROUP_0", "licenses"},
                                                      {"CTEST_RESOURCE_GROUP_0_LICENSES", "id:a,slots:1"},
                                                      {"CTEST_RESOURCE_GROUP_1", "crypto,gpus"},
                                                      {"CTEST_RESOURCE_GROUP_1_GPUS", "id:1,slots:2;id:0,slots:2"}})),
            1);
  EXPECT_THROW(kernelblaster::ctest_allocated_gpu(env_of({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                                                         {"CTEST_RESOURCE_GROUP_0", "gpus"},
                                                         {"CTEST_RESOURCE_GROUP_0_GPUS", "id:gpu-a,slots:1"}})),
               std::invalid_argument);
}
