// The original's runs kept between evaluations (judge/reference_runs.h),
// played with stand-ins for both programs (shell scripts that write a report
// and count their runs) and a GPU probe that claims one: any machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <thread>

#include "common/file_util.h"
#include "common/protocol.h"
#include "judge/evaluator.h"
#include "judge/reference_runs.h"

namespace kernelblaster {
namespace {

namespace fs = std::filesystem;

class ClaimedGpu final : public GpuProbe {
 public:
  GpuInfo probe(int) override { return {true, "", "Claimed GPU (test)", "sm_90"}; }
};

// A program that describes itself, counts its runs in `count_file` and
// writes a report with nothing to compare.
std::string stand_in(const fs::path& path, const fs::path& count_file) {
  write_file(path.string(), std::string("#!/bin/sh\n") +
                                "if [ \"$1\" = --describe ]; then\n"
                                "  echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}'; exit 0\n"
                                "fi\n"
                                "touch \"$4/" + kLockHeldMarker + "\"\n"
                                "echo run >> '" + count_file.string() + "'\n"
                                "echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}' > \"$4/report.json\"\n");
  fs::permissions(path, fs::perms::owner_all);
  return path.string();
}

int lines(const fs::path& file) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

struct Rig {
  fs::path dir = fs::temp_directory_path() / ("kb_reference_runs_test_" + std::to_string(::getpid()));
  std::string original, candidate;
  Rig() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    original = stand_in(dir / "original.sh", dir / "original.count");
    candidate = stand_in(dir / "candidate.sh", dir / "candidate.count");
  }
  ~Rig() { fs::remove_all(dir); }
  int original_runs() const { return lines(dir / "original.count"); }
  int candidate_runs() const { return lines(dir / "candidate.count"); }

  EvalResult evaluate(std::shared_ptr<ReferenceRuns> kept, std::uint64_t seed_base = 77, bool untrusted = false) {
    EvalRequest req;
    req.reference_binary = original;
    req.candidate_binary = candidate;
    req.work_dir = (dir / "work").string();
    req.seed_base = seed_base;
    req.untrusted = untrusted;
    req.reference_runs = std::move(kept);
    ClaimedGpu gpu;
    return Evaluator(Toolchain{}, gpu).evaluate(req);
  }
};

bool has_phase(const EvalResult& r, const std::string& name) {
  for (const auto& [phase, seconds] : r.phase_seconds)
    if (phase == name) return true;
  return false;
}

TEST(ReferenceRuns, TheSecondEvaluationOnTheSamePlanJudgesAgainstTheOriginalsKeptRun) {
  Rig rig;
  auto kept = std::make_shared<ReferenceRuns>((rig.dir / "kept").string());
  EvalResult first = rig.evaluate(kept);
  EvalResult second = rig.evaluate(kept);
  EXPECT_EQ(rig.original_runs(), 1);
  EXPECT_EQ(rig.candidate_runs(), 2);
  EXPECT_EQ(first.status, second.status) << second.detail;
  EXPECT_FALSE(has_phase(first, "reference reused"));
  EXPECT_TRUE(has_phase(second, "reference reused"));
  EXPECT_EQ(kept->runs_kept(), 1);
}

TEST(ReferenceRuns, WithoutAStoreEveryEvaluationRunsTheOriginal) {
  Rig rig;
  rig.evaluate(nullptr);
  rig.evaluate(nullptr);
  EXPECT_EQ(rig.original_runs(), 2);
}

TEST(ReferenceRuns, FreshSeedsOrAnUntrustedCandidateNeverMeetAKeptRun) {
  Rig rig;
  auto kept = std::make_shared<ReferenceRuns>((rig.dir / "kept").string());
  rig.evaluate(kept);
  rig.evaluate(kept, 0);                  // fresh random seeds: another plan
  rig.evaluate(kept, 77, /*untrusted=*/true);
  EXPECT_EQ(rig.original_runs(), 3);
}

TEST(ReferenceRuns, AnotherPlanRunsTheOriginalAgain) {
  Rig rig;
  auto kept = std::make_shared<ReferenceRuns>((rig.dir / "kept").string());
  rig.evaluate(kept, 77);
  rig.evaluate(kept, 78);
  rig.evaluate(kept, 77);
  EXPECT_EQ(rig.original_runs(), 2);
}

TEST(ReferenceRuns, ARunPastItsWindowIsTakenAgainAndItsDirectoryRemoved) {
  Rig rig;
  auto kept = std::make_shared<ReferenceRuns>((rig.dir / "kept").string(), /*reuse_s=*/0.2);
  rig.evaluate(kept);
  const std::string first_dir = kept->dir() + "/run-0";
  EXPECT_TRUE(fs::exists(first_dir + "/report.json"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  rig.evaluate(kept);
  EXPECT_EQ(rig.original_runs(), 2);
  EXPECT_FALSE(fs::exists(first_dir));  // the stale run went with its dumps
  EXPECT_TRUE(fs::exists(kept->dir() + "/run-1/report.json"));
}

TEST(ReferenceRuns, AnOriginalThatFailsIsNotKept) {
  Rig rig;
  // An original that writes no report: the evaluation ends reference_failed, and nothing is kept.
  write_file(rig.original, std::string("#!/bin/sh\n") +
                               "if [ \"$1\" = --describe ]; then\n"
                               "  echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}'; exit 0\n"
                               "fi\n"
                               "touch \"$4/" + kLockHeldMarker + "\"\n"
                               "echo run >> '" + (rig.dir / "original.count").string() + "'\n"
                               "exit 3\n");
  auto kept = std::make_shared<ReferenceRuns>((rig.dir / "kept").string());
  EXPECT_EQ(rig.evaluate(kept).status, Status::reference_failed);
  EXPECT_EQ(rig.evaluate(kept).status, Status::reference_failed);
  EXPECT_EQ(rig.original_runs(), 2);
  EXPECT_EQ(kept->runs_kept(), 0);
}

// Both stand-ins describe `sizes` and keep every plan they are given,
// "@@" after each, in PROGRAM.plans (plans_of).
void keep_plans(const Rig& rig, const std::string& sizes) {
  const std::string describe = R"({"harness":"stand-in","sizes":)" + sizes + "}";
  for (const std::string& program : {rig.original, rig.candidate})
    write_file(program, std::string("#!/bin/sh\n") + "if [ \"$1\" = --describe ]; then\n  echo '" + describe +
                            "'; exit 0\nfi\n" + "touch \"$4/" + kLockHeldMarker + "\"\n" + "cat \"$2\" >> '" +
                            program + ".plans'\n" + "echo @@ >> '" + program + ".plans'\n" + "echo '" + describe +
                            "' > \"$4/report.json\"\n");
}

std::vector<Plan> plans_of(const std::string& program) {
  std::vector<Plan> plans;
  const std::string all = read_file(program + ".plans");
  for (std::size_t at = 0, end; (end = all.find("@@", at)) != std::string::npos; at = end + 2)
    plans.push_back(plan_from_json(all.substr(at, end - at)));
  fs::remove(program + ".plans");
  return plans;
}

// An evaluation of the rig's stand-ins on seeds from 77, `set` adjusting the request.
EvalResult evaluate_with(const Rig& rig, const std::function<void(EvalRequest&)>& set) {
  EvalRequest req;
  req.reference_binary = rig.original;
  req.candidate_binary = rig.candidate;
  req.work_dir = (rig.dir / "work").string();
  req.seed_base = 77;
  set(req);
  ClaimedGpu gpu;
  return Evaluator(Toolchain{}, gpu).evaluate(req);
}

// A winner's second look times the validation sizes too (EvalRequest::
// time_every_size); the search's evaluations time only the sizes it compares.
TEST(ReferenceRuns, ASecondLookTimesEverySizeTheSearchDoesNot) {
  Rig rig;
  keep_plans(rig, R"([{"label":"large"},{"label":"small","validation_only":true}])");
  for (bool every : {false, true}) {
    evaluate_with(rig, [&](EvalRequest& req) { req.time_every_size = every; });
    const Plan plan = plans_of(rig.candidate).back();
    EXPECT_EQ(plan.timing.sizes, every ? std::vector<int>({0, 1}) : std::vector<int>()) << "time_every_size " << every;
  }
  // A guarded source runs the original's code at some shapes: those among
  // the validation sizes are not timed; a size the speedup is taken over is.
  for (const std::vector<std::string>& untimed : {std::vector<std::string>{"small"}, {"large", "small"}}) {
    evaluate_with(rig, [&](EvalRequest& req) {
      req.time_every_size = true;
      req.validation_sizes = true;
      req.untimed_sizes = untimed;
    });
    const Plan plan = plans_of(rig.candidate).back();
    EXPECT_EQ(plan.timing.sizes, std::vector<int>({0})) << untimed.size() << " untimed";
    bool small_checked = false;
    for (const RunRequest& run : plan.runs) small_checked = small_checked || run.size == 1;
    EXPECT_TRUE(small_checked) << "an untimed size is still checked";
  }
}

// The back-to-back round only times: the main round checked every run,
// and its timed calls' outputs are checked as the main round's are.
TEST(ReferenceRuns, TheBackToBackRoundRunsNoCorrectnessRuns) {
  Rig rig;
  keep_plans(rig, R"([{"label":"large"}])");
  const EvalResult r = evaluate_with(rig, [](EvalRequest& req) { req.back_to_back = true; });
  ASSERT_EQ(r.status, Status::ok) << r.detail;
  const std::vector<Plan> plans = plans_of(rig.candidate);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_TRUE(plans[0].timing.flush_l2);
  EXPECT_FALSE(plans[0].runs.empty());
  EXPECT_FALSE(plans[1].timing.flush_l2);
  EXPECT_TRUE(plans[1].runs.empty());
}

// A report the candidate wrote that cannot be read is as good as none, and
// the verdict says why it could not be read.
TEST(ReferenceRuns, AnUnreadableReportIsNamedInTheVerdict) {
  Rig rig;
  write_file(rig.candidate, std::string("#!/bin/sh\n") +
                                "if [ \"$1\" = --describe ]; then\n"
                                "  echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}'; exit 0\n"
                                "fi\n"
                                "touch \"$4/" + kLockHeldMarker + "\"\n"
                                "echo '{\"harness\": ' > \"$4/report.json\"\nexit 3\n");
  const EvalResult r = rig.evaluate(nullptr);
  EXPECT_EQ(r.status, Status::crashed) << r.detail;
  EXPECT_NE(r.detail.find("its report.json cannot be read: "), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace kernelblaster
