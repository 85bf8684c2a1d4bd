// The KernelBench path builds a candidate while the original's process runs
// (EvalRequest::build_candidate). These tests play it with a stand-in for
// the original's program (a shell script that holds "the GPU" for 30 s) and
// a GPU probe that claims one, so they run on any machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "common/file_util.h"
#include "common/protocol.h"
#include "judge/evaluator.h"

namespace kernelblaster {
namespace {

namespace fs = std::filesystem;

class ClaimedGpu final : public GpuProbe {
 public:
  explicit ClaimedGpu(bool present) : m_present(present) {}
  GpuInfo probe(int) override {
    if (!m_present) return {false, "no GPU (test)", "", ""};
    return {true, "", "Claimed GPU (test)", "sm_90"};
  }

 private:
  bool m_present;
};

struct Rig {
  fs::path dir;
  std::string original;  // the stand-in program
  Rig() {
    dir = fs::temp_directory_path() / ("kb_overlap_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    original = (dir / "original.sh").string();
    // Describes itself, then takes "the lock" and runs for 30 s.
    write_file(original, std::string("#!/bin/sh\n") +
                             "if [ \"$1\" = --describe ]; then\n"
                             "  echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}'; exit 0\n"
                             "fi\n"
                             "touch \"$4/" + kLockHeldMarker + "\"\n"
                             "exec sleep 30\n");
    fs::permissions(original, fs::perms::owner_all);
  }
  ~Rig() { fs::remove_all(dir); }

  EvalRequest request(std::function<BuildOutcome()> build) const {
    EvalRequest req;
    req.reference_binary = original;
    req.build_candidate = std::move(build);
    req.work_dir = (dir / "work").string();
    req.run_timeout_s = 60;
    return req;
  }
};

BuildOutcome failing_build() {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BuildOutcome b;
  b.ok = false;
  b.first_error = "candidate.cu(3): error: identifier \"float5\" is undefined";
  b.seconds = 0.3;
  return b;
}

TEST(EvaluatorOverlap, ACandidateThatFailsToBuildStopsTheOriginalsProcess) {
  Rig rig;
  ClaimedGpu gpu(true);
  Evaluator ev(Toolchain{}, gpu);
  auto t0 = std::chrono::steady_clock::now();
  EvalResult r = ev.evaluate(rig.request(failing_build));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_NE(r.detail.find("float5"), std::string::npos) << r.detail;
  // The original's process would have run 30 s: it was stopped, not waited for.
  EXPECT_LT(waited, 10.0);
  EXPECT_GE(r.compile_seconds, 0.3);
  EXPECT_GE(r.wall_seconds, 0.3);
}

// A KernelBench candidate whose object goes past the bound (its build says
// forbidden_code) ends with that status, not as a compile failure.
TEST(EvaluatorOverlap, ACandidateRefusedByTheBoundKeepsItsStatus) {
  Rig rig;
  ClaimedGpu gpu(true);
  Evaluator ev(Toolchain{}, gpu);
  auto refused = [] {
    BuildOutcome b = failing_build();
    b.failure = Status::forbidden_code;
    b.first_error = "the candidate's compiled code calls fork (processes), which the original does not";
    return b;
  };
  EvalResult r = ev.evaluate(rig.request(refused));
  EXPECT_EQ(r.status, Status::forbidden_code);
  EXPECT_NE(r.detail.find("calls fork"), std::string::npos) << r.detail;
  ClaimedGpu none(false);
  EXPECT_EQ(Evaluator(Toolchain{}, none).evaluate(rig.request(refused)).status, Status::forbidden_code);
}

TEST(EvaluatorOverlap, WithoutAGpuABuildFailureIsStillReported) {
  Rig rig;
  ClaimedGpu none(false);
  Evaluator ev(Toolchain{}, none);
  EvalResult r = ev.evaluate(rig.request(failing_build));
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_NE(r.detail.find("float5"), std::string::npos);

  r = ev.evaluate(rig.request([] {
    BuildOutcome b;
    b.ok = true;
    b.binary = "/bin/true";
    return b;
  }));
  EXPECT_EQ(r.status, Status::no_gpu);
}

// A candidate cannot run on long past the point where it could still win:
// 8 times the original's process, at least 15 s, at most the run's timeout.
TEST(CandidateDeadline, FollowsTheOriginalsTime) {
  EXPECT_DOUBLE_EQ(candidate_deadline(60, 3), 24);   // 8 x 3 s
  EXPECT_DOUBLE_EQ(candidate_deadline(60, 0.5), 15);  // a fast original: the floor
  EXPECT_DOUBLE_EQ(candidate_deadline(60, 20), 60);   // a slow original: the run's own timeout
  EXPECT_DOUBLE_EQ(candidate_deadline(10, 0.5), 10);  // a short timeout is kept
}

}  // namespace
}  // namespace kernelblaster
