// What a harness or driver process changes about itself while it runs
// (runtime/process_state.h): read in this very process, no GPU needed.
#include "runtime/process_state.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

namespace kernelblaster {
namespace {

TEST(ProcessState, EnvironmentChangesAreNamedOnePhraseEach) {
  const Environment before = {{"HOME", "/root"}, {"LANG", "C"}, {"PATH", "/bin"}};
  const Environment after = {{"HOME", "/root"}, {"LANG", "C.UTF-8"}, {"PYTORCH_NO_CUDA_MEMORY_CACHING", "1"}};
  EXPECT_EQ(environment_changes(before, after),
            (std::vector<std::string>{"LANG changed in its environment",
                                      "PYTORCH_NO_CUDA_MEMORY_CACHING set in its environment",
                                      "PATH removed from its environment"}));
  EXPECT_TRUE(environment_changes(before, before).empty());
}

void on_alarm(int) {}

// The watch in this process: a setenv, an unsetenv and a new handler after
// arm() are seen; what was there before it armed is not counted as a handler change.
TEST(ProcessState, AWatchSeesWhatTheProcessChangedAfterItStarted) {
  ::signal(SIGUSR2, on_alarm);  // before arm(): setup's own
  ProcessWatch watch;
  watch.arm();
  const std::vector<std::string> at_start = watch.changes();  // what the test runner changed before main
  ::setenv("KERNELBLASTER_TAMPER_TEST", "1", 1);
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  ::sigaction(SIGALRM, &sa, nullptr);
  std::vector<std::string> seen = watch.changes();
  auto has = [&](const std::string& s) { return std::find(seen.begin(), seen.end(), s) != seen.end(); };
  if (!initial_environment().empty()) EXPECT_TRUE(has("KERNELBLASTER_TAMPER_TEST set in its environment"));
  EXPECT_TRUE(has("its handler of SIGALRM replaced"));
  EXPECT_FALSE(has("its handler of SIGUSR2 replaced"));
  EXPECT_EQ(seen.size(), at_start.size() + (initial_environment().empty() ? 1 : 2));
  ::unsetenv("KERNELBLASTER_TAMPER_TEST");
  ::signal(SIGALRM, SIG_DFL);
  seen = watch.changes();
  EXPECT_FALSE(has("KERNELBLASTER_TAMPER_TEST set in its environment"));
  EXPECT_EQ(seen, at_start);
}

}  // namespace
}  // namespace kernelblaster
