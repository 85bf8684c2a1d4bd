#include "common/subprocess.h"

#include <gtest/gtest.h>

namespace kernelblaster {
namespace {

TEST(Subprocess, CapturesOutputAndExitCode) {
  ProcessResult r = run_process({"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.output.find("hello"), std::string::npos);
  EXPECT_NE(r.output.find("oops"), std::string::npos);
  EXPECT_EQ(r.how_it_ended(), "exit 3");
}

TEST(Subprocess, ACrashIsReportedNotFatal) {
  ProcessResult r = run_process({"sh", "-c", "kill -SEGV $$"});
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.how_it_ended(), "killed by SIGSEGV");
}

TEST(Subprocess, AHangIsKilledAtTheDeadline) {
  ProcessOptions opt;
  opt.timeout_s = 0.3;
  ProcessResult r = run_process({"sleep", "30"}, opt);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 2.0);
}

TEST(Subprocess, ADetachedGrandchildHoldingTheOutputDoesNotBlock) {
  // The child exits at once; its background child keeps stdout open.
  ProcessOptions opt;
  opt.timeout_s = 5;
  ProcessResult r = run_process({"sh", "-c", "sleep 20 & echo done"}, opt);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LT(r.seconds, 3.0);
}

TEST(Subprocess, MissingProgramIsASpawnFailure) {
  ProcessResult r = run_process({"/nonexistent/kernelblaster-test-binary"});
  EXPECT_TRUE(r.spawn_failed);
  EXPECT_FALSE(r.ok());
}

TEST(Subprocess, ExtraEnvironmentAndWorkingDirectory) {
  ProcessOptions opt;
  opt.extra_env["KERNELBLASTER_TEST_VALUE"] = "42";
  opt.cwd = "/tmp";
  ProcessResult r = run_process({"sh", "-c", "echo $KERNELBLASTER_TEST_VALUE; pwd"}, opt);
  EXPECT_NE(r.output.find("42"), std::string::npos);
  EXPECT_NE(r.output.find("/tmp"), std::string::npos);
}

TEST(Subprocess, OutputTailKeepsTheLastLines) {
  ProcessResult r;
  r.output = "a\n\nb\nc\nd\n";
  EXPECT_EQ(r.output_tail(2), "c | d");
}

}  // namespace
}  // namespace kernelblaster
